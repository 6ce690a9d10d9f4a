# dsh shell integration for bash: OSC 133 marks (prompt, command, output, exit status) and OSC 7 (the
# directory), so dsh knows exactly when the shell waits at its prompt. Started as
# `bash --init-file <this> -i`: it first reads what bash itself would have read, then adds its hooks.

if [[ -n ${DSH_SHELL_LOGIN-} ]]; then
    # A login shell: /etc/profile, then the first of the user's profile files (as `bash -l` does).
    [[ -r /etc/profile ]] && . /etc/profile
    for __dsh_profile in ~/.bash_profile ~/.bash_login ~/.profile; do
        if [[ -r $__dsh_profile ]]; then . "$__dsh_profile"; break; fi
    done
    unset __dsh_profile
else
    [[ -r ~/.bashrc ]] && . ~/.bashrc
fi
unset DSH_SHELL_LOGIN

if [[ -z ${__dsh_integrated-} ]]; then
    __dsh_integrated=1
    __dsh_prompted=""
    __dsh_precmd() {
        local status=$?
        # The end of the command before (with its status; not before the first prompt), then the
        # directory, then a new prompt.
        if [[ -n $__dsh_prompted ]]; then printf '\033]133;D;%s\007' "$status"; fi
        __dsh_prompted=1
        printf '\033]7;file://%s%s\007' "${HOSTNAME-}" "$PWD"
        printf '\033]133;A\007'
        return $status
    }
    if [[ -n ${PROMPT_COMMAND-} ]]; then
        PROMPT_COMMAND="__dsh_precmd; ${PROMPT_COMMAND}"
    else
        PROMPT_COMMAND="__dsh_precmd"
    fi
    PS1="${PS1}\[\033]133;B\007\]"
    if (( BASH_VERSINFO[0] > 4 || (BASH_VERSINFO[0] == 4 && BASH_VERSINFO[1] >= 4) )); then
        # PS0 is printed after a command line is read, before it runs: exactly "output starts".
        PS0="${PS0-}\[\033]133;C\007\]"
    else
        # Older bash: a DEBUG trap, armed only once the whole PROMPT_COMMAND has run (other hooks in
        # it must not count as the user's command).
        __dsh_armed=""
        __dsh_arm() { __dsh_armed=1; }
        __dsh_preexec() {
            if [[ -n $__dsh_armed && -z ${COMP_LINE-} ]]; then
                __dsh_armed=""
                printf '\033]133;C\007'
            fi
        }
        PROMPT_COMMAND="${PROMPT_COMMAND}; __dsh_arm"
        trap '__dsh_preexec' DEBUG
    fi
fi
