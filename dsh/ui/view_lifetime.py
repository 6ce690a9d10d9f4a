"""One view's prompt_toolkit Application from its making to its end: run, first frame, exit early or late."""

from __future__ import annotations

from typing import TYPE_CHECKING

from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import DynamicKeyBindings

from dsh.session.view_records import EndReason, ViewResult
from dsh.ui import chrome
from dsh.ui.cursor_shape import PaneCursorShape
from dsh.ui.keypad import KeypadMirror
from dsh.ui.link_input import LinkInput
from dsh.ui.outer_title import TitleMirror
from dsh.ui.view_application import ViewApplication

if TYPE_CHECKING:
    from dsh.ui.app import DshApp
    from dsh.ui.view_options import ViewOptions


class ViewLifetime:
    """The Application of one view (`app.application`): made on the view's layout, run until the
    session ends or the client leaves; an exit asked before it runs ends it as soon as it starts."""

    def __init__(self, app: DshApp, options: ViewOptions) -> None:
        self.app = app
        self.ended = False  # the view has stopped drawing: workers must not call back into it
        self._exit_requested = False
        self.first_frame_out = False  # the bindings and the index refresh for /resume wait for it
        self._open_picker_on_start = options.open_picker
        depth = options.color_depth
        application: ViewApplication[ViewResult] = ViewApplication(
            layout=app.layout,
            key_bindings=DynamicKeyBindings(app.keys.current_bindings),
            style=chrome.STYLE,
            # No pygments lexer draws here: its default style would be parsed and merged for nothing.
            include_default_pygments_style=False,
            full_screen=True,
            mouse_support=Condition(lambda: app.config.flag("ui.mouse")),
            min_redraw_interval=None,
            max_render_postpone_time=None,
            refresh_interval=None,
            color_depth=(lambda: depth) if depth is not None else None,
            cursor=PaneCursorShape(app.outer.cursor_shape),
        )
        self.application = application
        # The keypad's mode follows the pane the keys go to; its keys are read as keypad keys there.
        self.keypad = KeypadMirror(app.outer.keypad)
        application.before_render += self.keypad.before_render
        self.outer_title = TitleMirror(app.outer.title)
        application.before_render += self.outer_title.before_render
        if isinstance(application.input, LinkInput):
            application.input.keypad = app.outer.keypad
        application.ttimeoutlen = 0.05
        application.timeoutlen = 0.05
        application.key_processor.before_key_press += lambda _sender: app.state.key_pressed()

    def exit(self) -> None:
        app = self.application
        if app.is_running and app.future is not None and not app.future.done():
            app.exit(result=self.app.result)
        elif not self.ended:
            self._exit_requested = True  # asked before the app runs: it ends as soon as it starts

    def _after_first_frame(self, _app: object) -> None:
        # Left registered (taking a handler out while the event fires would skip the next one); on the
        # loop's next turns, not inside the render.
        if not self.first_frame_out:
            self.first_frame_out = True
            self.app.state.first_frame_shown()
            loop = self.app.loop
            loop.call_soon(self.app.keys.current_bindings)
            loop.call_soon(self.app.resume.refresh_index_in_background)

    async def run(self) -> ViewResult:
        """Draw the session until it ends, or this client detaches or moves elsewhere."""
        app = self.app
        session = app.session
        session.attach(app.state)
        # History first, then the index, warmed for /resume once the first frame is out: its import and
        # its refresh on the worker thread held that frame back.
        app.prompt_input.start_loading()
        self.application.after_render += self._after_first_frame

        def pre_run() -> None:
            session.apply_read_budgets()
            app.follow_keyboard()  # an attach is a focus too: to vim or an agent running there, say
            app.prompt_input.into_buffer()
            if self._exit_requested:
                app.loop.call_soon(self.exit)
            elif self._open_picker_on_start:
                app.open_picker()

        try:
            # No exception handler of prompt_toolkit's: it would print to the client and wait for Enter.
            result = await self.application.run_async(pre_run=pre_run, handle_sigint=False, set_exception_handler=False)
        finally:
            self.ended = True
            app.resume.close()
            session.detach(app.state)  # (and lets go of its pane's focus: focus-out if no other view is in it)
        result = result or app.result
        return result if result.reason else ViewResult(EndReason.GONE)
