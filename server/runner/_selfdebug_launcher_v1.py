"""selfdebug launcher v1: apply resource limits (and, without bubblewrap, Landlock) to this
process, then exec the test command.

Standalone on purpose: it imports only the standard library, so any Python 3 can run it (the
runner starts it with selfdebug's own interpreter, so the restrictions are in place before the
project's interpreter runs at all). Limits are set here rather than in a `preexec_fn`, which can
deadlock in a threaded server. Usage:
python _selfdebug_launcher_v1.py '{"limits": {"AS": 1073741824}, "landlock": [dirs], "argv": [...]}'
`landlock` lists the only folders the command may write to (files anywhere else are read-only);
it is applied when the kernel has Landlock and ignored otherwise.
"""

import json
import os
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


def apply_landlock(writable):
    """Allow writes only below `writable` (reads and exec stay allowed). False when the kernel
    has no Landlock (the caller has said so to the user already)."""
    try:
        import ctypes
    except ImportError:
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    abi = libc.syscall(_CREATE_RULESET, None, 0, 1)
    if abi < 1:
        return False
    handled = _WRITE_ACCESS[min(abi, 3)]

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
        # /dev/null and terminals stay writable; /dev/shm holds multiprocessing's semaphores.
        device_writes = handled & (1 << 1 | 1 << 14)  # WRITE_FILE, TRUNCATE
        rules = [(folder, handled) for folder in writable]
        rules += [("/dev", device_writes), ("/dev/shm", handled)]
        for folder, access in rules:
            try:
                fd = os.open(folder, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                rule = PathBeneath(access, fd)
                libc.syscall(_ADD_RULE, ruleset, 1, ctypes.byref(rule), 0)  # PATH_BENEATH
            finally:
                os.close(fd)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return False
        return libc.syscall(_RESTRICT_SELF, ruleset, 0) == 0
    finally:
        os.close(ruleset)


def drop_ptrace_capability():
    """Run as root, the command would keep CAP_SYS_PTRACE, which reads any process's
    /proc/<pid>/environ (the server's API keys) even when that process is non-dumpable. Dropped
    from the bounding set, it is gone after exec."""
    if os.getuid() != 0:
        return
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(24, 19, 0, 0, 0)  # PR_CAPBSET_DROP, SYS_PTRACE
    except (ImportError, OSError, AttributeError):
        pass


def main():
    config = json.loads(sys.argv[1])
    apply_limits(config.get("limits", {}))
    if config.get("landlock") is not None:  # the fallback: no bubblewrap around us
        apply_landlock(config["landlock"])
        drop_ptrace_capability()
    argv = config["argv"]
    os.execv(argv[0], argv)


if __name__ == "__main__":
    main()
