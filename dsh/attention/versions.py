"""Which agent CLI version each attention mapping was checked against (as dsh.agents.cli_table does
for options and subcommands): a new version is checked by `tests/test_attention_real_clis.py` with
the CLI from npm in a scratch prefix, and this table moves with it."""

from __future__ import annotations

# (agent, what, checked against, how)
CHECKED = (
    (
        "claude",
        "--settings FILE with hooks, beside the user's settings.json hooks",
        "2.1.197",
        "the user's own UserPromptSubmit hook ran once beside dsh's (identical commands run once)",
    ),
    ("claude", "SessionStart {session_id, transcript_path, source}", "2.1.197", "seen from the real CLI"),
    ("claude", "UserPromptSubmit {prompt, prompt_id, permission_mode}", "2.1.197", "seen from the real CLI"),
    (
        "claude",
        "hook `async: true` (runs in the background, the agent does not wait)",
        "2.1.197",
        "in the CLI's settings schema",
    ),
    (
        "claude",
        "PermissionRequest, PreToolUse AskUserQuestion, Notification, Stop, SessionEnd",
        "2.1.197",
        "event names in the CLI's settings schema; fields as documented (last_assistant_message since 2.1.47)",
    ),
    (
        "codex",
        "-c notify=[argv] -> agent-turn-complete JSON as the last argument",
        "0.171.0",
        "accepted by `codex exec`; the payload as codex-rs/hooks/src/legacy_notify.rs",
    ),
    (
        "codex",
        "-c tui.notifications=true tui.notification_method=osc9 tui.notification_condition=always",
        "0.171.0",
        "keys and values in the CLI; texts 'Approval requested', 'Codex wants to', 'Question requested', "
        "'Agent turn complete'",
    ),
    (
        "codex",
        "hooks (-c hooks.EVENT=[…] or hooks.json: UserPromptSubmit, PermissionRequest, Stop, SessionStart …)",
        "0.171.0",
        "not used (rechecked 2026-12-02, tests/e2e/test_attention_real_clis.py): every event is there, but a"
        " hook given with -c is untrusted (hooks/list: key '/<session-flags>/config.toml:EVENT:0:0') and does"
        " not run; -c hooks.state.KEY.trusted_hash=… is 'ignored' from session flags; only"
        " --dangerously-bypass-hook-trust runs it, and it runs every untrusted hook of the user's too; trust"
        " lives in the user's ~/.codex/config.toml [hooks.state], which dsh does not write",
    ),
    (
        "opencode",
        "OPENCODE_CONFIG naming a config with plugin [file://…]",
        "1.18.33",
        "events session.status, session.idle, permission.asked, question.asked; run end to end offline"
        " (tests/e2e/test_attention_real_clis.py): the plugin loads and session.status busy reports working",
    ),
)
