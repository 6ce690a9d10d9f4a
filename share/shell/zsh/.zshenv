# dsh shell integration for zsh: ZDOTDIR points here so these files run first; each hands over to
# the user's own file of the same name, and .zshrc adds the OSC 133 and OSC 7 hooks.
__dsh_zdotdir=$ZDOTDIR
ZDOTDIR=${DSH_USER_ZDOTDIR:-$HOME}
[[ -r $ZDOTDIR/.zshenv ]] && . $ZDOTDIR/.zshenv
# Back here for the files zsh reads next, unless the user's .zshenv chose another ZDOTDIR itself.
if [[ $ZDOTDIR == ${DSH_USER_ZDOTDIR:-$HOME} ]]; then
    DSH_USER_ZDOTDIR=$ZDOTDIR
    ZDOTDIR=$__dsh_zdotdir
fi
unset __dsh_zdotdir
