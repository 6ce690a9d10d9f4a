# dsh shell integration for fish: OSC 133 marks and OSC 7, from fish's own events.
# Started as `fish --init-command 'source <this>'`: fish has read its config already.
if not set -q __dsh_integrated
    set -g __dsh_integrated 1
    function __dsh_prompt_start --on-event fish_prompt
        printf '\e]7;file://%s%s\a' (hostname) "$PWD"
        printf '\e]133;A\a'
    end
    # B (the command starts here) goes at the end of the prompt itself: fish has no event for it.
    if functions -q fish_prompt
        functions -c fish_prompt __dsh_user_prompt
        function fish_prompt
            __dsh_user_prompt
            printf '\e]133;B\a'
        end
    end
    function __dsh_preexec --on-event fish_preexec
        printf '\e]133;C\a'
    end
    function __dsh_postexec --on-event fish_postexec
        printf '\e]133;D;%s\a' $status
    end
end
