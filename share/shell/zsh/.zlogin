[[ -r ${DSH_USER_ZDOTDIR:-$HOME}/.zlogin ]] && ZDOTDIR=${DSH_USER_ZDOTDIR:-$HOME} . ${DSH_USER_ZDOTDIR:-$HOME}/.zlogin
# From here on zsh reads no more startup files: give the user their ZDOTDIR back.
ZDOTDIR=${DSH_USER_ZDOTDIR:-$HOME}
