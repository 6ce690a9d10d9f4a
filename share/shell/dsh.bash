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
    __dsh_ran=""
    __dsh_precmd() {
        local status=$?
        # The end of the command before (with its status), then the directory, then a new prompt.
        if [[ -n $__dsh_ran ]]; then printf '\033]133;D;%s\007' "$status"; fi
        __dsh_ran=""
        printf '\033]7;file://%s%s\007' "${HOSTNAME-}" "$PWD"
        printf '\033]133;A\007'
        return $status
    }
    __dsh_preexec() {
        # Before a command line runs (not for the prompt's own PROMPT_COMMAND work).
        if [[ -z $__dsh_ran && -z ${COMP_LINE-} && $BASH_COMMAND != __dsh_precmd* ]]; then
            __dsh_ran=1
            printf '\033]133;C\007'
        fi
    }
    if [[ -n ${PROMPT_COMMAND-} ]]; then
        PROMPT_COMMAND="__dsh_precmd; ${PROMPT_COMMAND}"
    else
        PROMPT_COMMAND="__dsh_precmd"
    fi
    PS1="${PS1}\[\033]133;B\007\]"
    trap '__dsh_preexec' DEBUG
fi
