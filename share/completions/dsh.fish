# fish completion for dsh

function __dsh_session_ids
    dsh sessions --all 2>/dev/null | awk 'NR > 1 { print $1 }'
end

function __dsh_config_keys
    dsh config --show-origin 2>/dev/null | cut -f2 | sed 's/ = .*//'
end

set -l commands sessions config

complete -c dsh -f
complete -c dsh -n "not __fish_seen_subcommand_from $commands" -a sessions -d 'List sessions (this workspace; --all for every workspace)'
complete -c dsh -n "not __fish_seen_subcommand_from $commands" -a config -d 'Print the effective config, or get KEY, or set KEY VALUE'
complete -c dsh -n "not __fish_seen_subcommand_from $commands" -l resume -x -a '(__dsh_session_ids)' -d 'Resume session ID (no ID: open the picker)'
complete -c dsh -n "not __fish_seen_subcommand_from $commands" -l continue -d 'Resume the newest session of this workspace'
complete -c dsh -n "not __fish_seen_subcommand_from $commands" -l open-agent -x -d 'Open an agent conversation (KIND:ID) in a new session in its directory'
complete -c dsh -n "not __fish_seen_subcommand_from $commands" -l version -d 'Print the version and exit'
complete -c dsh -s h -l help -d 'Print usage and exit'
complete -c dsh -s o -l option -x -a '(__dsh_config_keys)=' -d 'Set a config value for this run (KEY=VALUE)'

complete -c dsh -n "__fish_seen_subcommand_from sessions" -l all -d 'List every workspace'
complete -c dsh -n "__fish_seen_subcommand_from sessions" -l json -d 'Print a JSON array'
complete -c dsh -n "__fish_seen_subcommand_from sessions" -l archived -d 'Include archived sessions'
complete -c dsh -n "__fish_seen_subcommand_from sessions" -l agents -d 'List agent conversations instead'
complete -c dsh -n "__fish_seen_subcommand_from sessions" -l machine -x -d "List machine NAME's sessions"
complete -c dsh -n "__fish_seen_subcommand_from sessions" -l machines -d "List every configured machine's sessions"

complete -c dsh -n "__fish_seen_subcommand_from config; and not __fish_seen_subcommand_from get set" -l show-origin -d 'Name the layer of each value'
complete -c dsh -n "__fish_seen_subcommand_from config; and not __fish_seen_subcommand_from get set" -a 'get set'
complete -c dsh -n "__fish_seen_subcommand_from config; and __fish_seen_subcommand_from get set" -a '(__dsh_config_keys)'
