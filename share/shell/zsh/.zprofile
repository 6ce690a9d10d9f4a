[[ -r ${DSH_USER_ZDOTDIR:-$HOME}/.zprofile ]] && ZDOTDIR=${DSH_USER_ZDOTDIR:-$HOME} . ${DSH_USER_ZDOTDIR:-$HOME}/.zprofile
