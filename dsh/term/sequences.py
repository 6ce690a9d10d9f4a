"""Mnemonic names for the control characters, escape and control sequences and modes a pane understands."""

from __future__ import annotations

# -- C0 and C1 control characters --------------------------------------------------------------
NUL = "\x00"
BEL = "\x07"
BS = "\x08"
HT = "\x09"
LF = "\x0a"
VT = "\x0b"
FF = "\x0c"
CR = "\x0d"
SO = "\x0e"  # shift out: G1 into GL
SI = "\x0f"  # shift in: G0 into GL
CAN = "\x18"
SUB = "\x1a"
ESC = "\x1b"
DEL = "\x7f"
IND_C1 = "\x84"
NEL_C1 = "\x85"
HTS_C1 = "\x88"
RI_C1 = "\x8d"
SS2_C1 = "\x8e"
SS3_C1 = "\x8f"
DCS_C1 = "\x90"
SOS_C1 = "\x98"
CSI_C1 = "\x9b"
ST_C1 = "\x9c"
OSC_C1 = "\x9d"
PM_C1 = "\x9e"
APC_C1 = "\x9f"

# -- ESC <final> (no intermediate) -------------------------------------------------------------
RIS = "c"  # reset to initial state
IND = "D"  # index
NEL = "E"  # next line
HTS = "H"  # horizontal tab set
RI = "M"  # reverse index
SS2 = "N"  # single shift G2
SS3 = "O"  # single shift G3
DECSC = "7"  # save cursor
DECRC = "8"  # restore cursor
DECKPAM = "="  # keypad application mode
DECKPNM = ">"  # keypad numeric mode
SPA = "V"  # start of protected area (ISO protection: plain erasing leaves it)
EPA = "W"  # end of protected area
LS2 = "n"  # G2 into GL
LS3 = "o"  # G3 into GL
# ESC with intermediates: the intermediates are part of the name
DECDHL_TOP = "#3"
DECDHL_BOTTOM = "#4"
DECSWL = "#5"
DECDWL = "#6"
DECALN = "#8"
# ESC ( ) * + <charset>: designate G0..G3
DESIGNATE = {"(": 0, ")": 1, "*": 2, "+": 3}

# -- CSI [marker] params [intermediates] <final>: named by marker + intermediates + final ------
ICH = "@"  # insert characters
CUU = "A"
CUD = "B"
CUF = "C"
CUB = "D"
CNL = "E"
CPL = "F"
CHA = "G"
CUP = "H"
CHT = "I"  # forward tabs
ED = "J"
EL = "K"
IL = "L"
DL = "M"
DCH = "P"
SU = "S"
SD = "T"
ECH = "X"
CBT = "Z"  # back tabs
HPA = "`"
HPR = "a"
REP = "b"
DA = "c"
VPA = "d"
VPR = "e"
HVP = "f"
TBC = "g"
SM = "h"
RM = "l"
SGR = "m"
DSR = "n"
DECSTBM = "r"
SCOSC = "s"  # save cursor (no parameters; with them, DECSLRM)
SCORC = "u"
DECSET = "?h"
DECRST = "?l"
DECSED = "?J"  # selective erase in display
DECSEL = "?K"  # selective erase in line
DECDSR = "?n"
DA2 = ">c"
DA3 = "=c"
XTMODKEYS = ">m"  # modifyOtherKeys and the like: nothing to draw
DECSTR = "!p"  # soft reset
DECRQM = "$p"
DECSCL = '"p'  # conformance level (VT100 … VT500): what DA and DA2 then answer
DECRQM_PRIVATE = "?$p"
DECSCA = '"q'  # character protection
DECSCUSR = " q"  # cursor style
XTVERSION = ">q"  # the terminal's name and version
XTWINOPS = "t"  # window operations: here the size and title reports and the title stack, no resizes
DECRQCRA = "*y"  # a checksum of a rectangle of the screen

# -- modes: ANSI (SM/RM) and DEC private (DECSET/DECRST) -----------------------------------------
IRM = 4  # insert
LNM = 20  # line feed also returns the carriage
DECCKM = 1  # application cursor keys
DECCOLM = 3  # 80/132 columns: here, clear and home
DECSCNM = 5  # reverse video screen
DECOM = 6  # origin mode
DECAWM = 7  # autowrap
X10_MOUSE = 9
DECTCEM = 25  # cursor visible
DECNKM = 66  # application keypad (as ESC =)
MOUSE_NORMAL = 1000
MOUSE_BUTTON = 1002
MOUSE_ANY = 1003
FOCUS_EVENTS = 1004
MOUSE_UTF8 = 1005
MOUSE_SGR = 1006
MOUSE_URXVT = 1015
ALT_SCREEN = 47
ALT_SCREEN_CLEAR = 1047
SAVE_CURSOR = 1048
ALT_SCREEN_SAVE = 1049
BRACKETED_PASTE = 2004
SYNCHRONIZED_OUTPUT = 2026

REVERSE_WRAP = 45  # xterm's reverse wraparound (with DECAWM): BS and CUB at column 1 go up a row
REVERSE_WRAP_EXTENDED = 1045  # xterm's since patch 383 for what 45 was before: the same here
ALT_SCREEN_MODES = (ALT_SCREEN_SAVE, ALT_SCREEN_CLEAR, ALT_SCREEN)
MOUSE_MODES = (X10_MOUSE, MOUSE_NORMAL, MOUSE_BUTTON, MOUSE_ANY)
# Private modes DECRQM answers for (1 set, 2 reset); others are reported unknown (0).
REPORTED_PRIVATE_MODES = frozenset(
    {
        DECCKM,
        DECCOLM,
        DECSCNM,
        DECOM,
        DECAWM,
        X10_MOUSE,
        12,
        DECTCEM,
        DECNKM,
        ALT_SCREEN,
        MOUSE_NORMAL,
        MOUSE_BUTTON,
        MOUSE_ANY,
        FOCUS_EVENTS,
        MOUSE_UTF8,
        MOUSE_SGR,
        MOUSE_URXVT,
        ALT_SCREEN_CLEAR,
        SAVE_CURSOR,
        ALT_SCREEN_SAVE,
        BRACKETED_PASTE,
        SYNCHRONIZED_OUTPUT,
        REVERSE_WRAP,
        REVERSE_WRAP_EXTENDED,
    }
)
REPORTED_ANSI_MODES = frozenset({IRM, LNM})
# Modes DECRQM answers "permanently reset" (4), as xterm does: ECMA-48's GATM, SRTM, VEM, HEM, PUM,
# FEAM, FETM, MATM, TTM, SATM, TSM and EBM, which no terminal emulator has; DEC's DECHCCM (60).
PERMANENTLY_RESET_ANSI_MODES = frozenset({1, 5, 7, 10, 11, 13, 14, 15, 16, 17, 18, 19})
PERMANENTLY_RESET_PRIVATE_MODES = frozenset({60})

# -- OSC codes -------------------------------------------------------------------------------
OSC_TITLE_AND_ICON = "0"
OSC_ICON = "1"
OSC_TITLE = "2"
OSC_PALETTE = "4"
OSC_CLIPBOARD = "52"
OSC_CWD = "7"
# FinalTerm's semantic prompt marks, as kitty, WezTerm, iTerm2 and VS Code use them: A prompt starts,
# B the command line starts (the prompt ended), C its output starts, D;status it ended.
OSC_SEMANTIC_PROMPT = "133"
OSC_FOREGROUND = "10"
OSC_BACKGROUND = "11"
OSC_CURSOR_COLOUR = "12"
OSC_PALETTE_RESET = "104"
OSC_FOREGROUND_RESET = "110"
OSC_BACKGROUND_RESET = "111"

DA_PRIMARY_REPLY = "\x1b[?62;22c"  # VT220 with ANSI colour, as xterm says
DA_SECONDARY_REPLY = "\x1b[>1;10;0c"
# Once a program sets a conformance level (DECSCL 61-65), DA and DA2 answer as xterm (patch 380) does
# at that level: what esctest2 checks, and what a program that chose a level expects to read back.
DA_PRIMARY_AT_LEVEL = {
    1: "\x1b[?1;2c",
    2: "\x1b[?62;1;2;6;9;15;22;29c",
    3: "\x1b[?63;1;2;6;9;15;22;29c",
    4: "\x1b[?64;1;2;6;9;15;16;17;18;21;22;28;29c",
    5: "\x1b[?65;1;2;6;9;15;16;17;18;21;22;28;29c",
}
DA_SECONDARY_AT_LEVEL = {
    1: "\x1b[>0;380;0c",
    2: "\x1b[>1;380;0c",
    3: "\x1b[>24;380;0c",
    4: "\x1b[>41;380;0c",
    5: "\x1b[>64;380;0c",
}
TITLE_STACK_MAX = 10  # XTWINOPS 22: titles pushed, the oldest dropped beyond this (xterm's depth)
