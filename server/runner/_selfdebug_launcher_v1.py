"""selfdebug launcher v1: apply resource limits to this process, then exec the test command.

Standalone on purpose: it runs in the project's interpreter and imports only the standard
library. Limits are set here rather than in a `preexec_fn`, which can deadlock in a threaded
server. Usage: python _selfdebug_launcher_v1.py '{"limits": {"AS": 1073741824}, "argv": [...]}'
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


def main():
    config = json.loads(sys.argv[1])
    apply_limits(config.get("limits", {}))
    argv = config["argv"]
    os.execv(argv[0], argv)


if __name__ == "__main__":
    main()
