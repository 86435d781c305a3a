"""selfdebug launcher v1: apply resource limits (and, without bubblewrap, Landlock) to this
process, then exec the test command.

Standalone on purpose: it imports only the standard library, so any Python 3 can run it (the
runner starts it with selfdebug's own interpreter, so the restrictions are in place before the
project's interpreter runs at all). Limits are set here rather than in a `preexec_fn`, which can
deadlock in a threaded server. Usage:
python _selfdebug_launcher_v1.py '{"limits": {"AS": 1073741824}, "landlock": [dirs],
    "landlock_read": [paths], "landlock_required": true, "argv": [...]}'
`landlock` lists the only folders the command may write to; `landlock_read`, when given, the
only files and folders it may read or execute besides them (the server builds that list:
server/runner/read_rules.py); without it reads stay open. Landlock is applied when the kernel has
it; `landlock_required` (the server saw the kernel has it) makes a failure to apply it fatal
instead of silent, so a run is never less sealed than the user was told.
"""

import json
import os
import stat
import sys


def _user_process_count(uid):
    count = 0
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if os.stat("/proc/" + name).st_uid == uid:
                    count += 1
            except OSError:
                pass
    return count


def apply_limits(limits):
    try:
        import resource
    except ImportError:  # not POSIX: nothing to apply
        return
    for name, value in limits.items():
        which = getattr(resource, "RLIMIT_" + name, None)
        if which is None:
            continue
        if name == "NPROC":
            # RLIMIT_NPROC counts every process of the user, and root ignores it entirely.
            if os.getuid() == 0:
                continue
            value += _user_process_count(os.getuid())
        _soft, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        try:
            resource.setrlimit(which, (value, value))
        except (ValueError, OSError):
            pass


# Landlock (linux/landlock.h): syscall numbers are the same on every architecture.
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_PR_SET_NO_NEW_PRIVS = 38
_WRITE_ACCESS = {  # ABI version -> filesystem write rights it knows
    1: 0b1_1111_1111_0010,  # WRITE_FILE, REMOVE_DIR/FILE, MAKE_CHAR/DIR/REG/SOCK/FIFO/BLOCK/SYM
    2: 0b11_1111_1111_0010,  # + REFER
    3: 0b111_1111_1111_0010,  # + TRUNCATE
}
_READ_ACCESS = 0b1101  # EXECUTE, READ_FILE, READ_DIR (every ABI knows them)
_FILE_ACCESS = 0b1100_0000_0000_0111  # the rights a rule on a file (not a folder) may carry
# Device files a test may use (never /dev as a whole: as root that is every disk).
_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty",
            "/dev/ptmx", "/dev/pts")  # fmt: skip


def apply_landlock(writable, readable=None):
    """Allow writes only below `writable`; with `readable` (a list), reads and exec only below
    `readable` and `writable`. False when Landlock could not be applied."""
    try:
        import ctypes
    except ImportError:
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    abi = libc.syscall(_CREATE_RULESET, None, 0, 1)
    if abi < 1:
        return False
    handled = _WRITE_ACCESS[min(abi, 3)]
    if readable is not None:
        handled |= _READ_ACCESS

    class RulesetAttr(ctypes.Structure):
        _fields_ = [("handled_access_fs", ctypes.c_uint64)]

    class PathBeneath(ctypes.Structure):
        _pack_ = 1
        _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]

    attr = RulesetAttr(handled)
    ruleset = libc.syscall(_CREATE_RULESET, ctypes.byref(attr), ctypes.sizeof(attr), 0)
    if ruleset < 0:
        return False
    try:
        # Devices: read and write (terminals, /dev/null); /dev/shm holds multiprocessing's
        # semaphores.
        device_access = handled & (1 << 1 | 1 << 2 | 1 << 14)  # WRITE_FILE, READ_FILE, TRUNCATE
        rules = [(folder, handled) for folder in writable]
        rules += [(device, device_access) for device in _DEVICES] + [("/dev/shm", handled)]
        rules += [(path, _READ_ACCESS) for path in readable or ()]
        for path, access in rules:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                if not stat.S_ISDIR(os.fstat(fd).st_mode):
                    access &= _FILE_ACCESS
                rule = PathBeneath(access & handled, fd)
                libc.syscall(_ADD_RULE, ruleset, 1, ctypes.byref(rule), 0)  # PATH_BENEATH
            finally:
                os.close(fd)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return False
        return libc.syscall(_RESTRICT_SELF, ruleset, 0) == 0
    finally:
        os.close(ruleset)


# Capabilities a test run as root must not keep: CAP_SYS_PTRACE reads any process's
# /proc/<pid>/environ (the server's API keys) even when that process is non-dumpable, and
# CAP_SYS_ADMIN or CAP_PERFMON let it read a same-user process's environ past Landlock's ptrace
# scoping (seen on Linux 6.18); CAP_BPF and CAP_SYS_MODULE reach kernel memory, CAP_SYS_RAWIO
# devices, CAP_DAC_READ_SEARCH opens files by handle, CAP_CHECKPOINT_RESTORE other processes'
# mapped files.
_DROPPED_CAPABILITIES = {"SYS_PTRACE": 19, "SYS_ADMIN": 21, "PERFMON": 38, "BPF": 39,
                         "SYS_MODULE": 16, "SYS_RAWIO": 17, "DAC_READ_SEARCH": 2,
                         "CHECKPOINT_RESTORE": 40}  # fmt: skip


def drop_root_capabilities():
    """Run as root, drop `_DROPPED_CAPABILITIES` from the bounding set: they are gone after
    exec. Nothing to do for other users (they hold no capabilities)."""
    if os.getuid() != 0:
        return
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
        for number in _DROPPED_CAPABILITIES.values():
            prctl(24, number, 0, 0, 0)  # PR_CAPBSET_DROP (EINVAL for one the kernel lacks)
    except (ImportError, OSError, AttributeError):
        pass


def main():
    config = json.loads(sys.argv[1])
    apply_limits(config.get("limits", {}))
    if config.get("landlock") is not None:  # the fallback: no bubblewrap around us
        applied = apply_landlock(config["landlock"], config.get("landlock_read"))
        if not applied and config.get("landlock_required"):
            sys.stderr.write("selfdebug launcher: Landlock could not be applied; not running\n")
            sys.exit(126)
        drop_root_capabilities()
    argv = config["argv"]
    os.execv(argv[0], argv)


if __name__ == "__main__":
    main()
