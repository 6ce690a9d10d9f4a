__dsh_here=$ZDOTDIR
ZDOTDIR=${DSH_USER_ZDOTDIR:-$HOME}
[[ -r $ZDOTDIR/.zshrc ]] && . $ZDOTDIR/.zshrc
ZDOTDIR=$__dsh_here
unset __dsh_here

if [[ -z ${__dsh_integrated-} ]]; then
    __dsh_integrated=1
    __dsh_ran=""
    __dsh_precmd() {
        local ret=$?
        [[ -n $__dsh_ran ]] && printf '\033]133;D;%s\007' $ret
        __dsh_ran=""
        printf '\033]7;file://%s%s\007' "$HOST" "$PWD"
        printf '\033]133;A\007'
    }
    __dsh_preexec() {
        __dsh_ran=1
        printf '\033]133;C\007'
    }
    autoload -Uz add-zsh-hook
    add-zsh-hook precmd __dsh_precmd
    add-zsh-hook preexec __dsh_preexec
    PS1="${PS1}%{$(printf '\033]133;B\007')%}"
fi
