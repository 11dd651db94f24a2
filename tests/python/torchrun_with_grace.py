"""torchrun, with a shorter wait between the SIGTERM it sends the ranks of a failed job and the
SIGKILL that follows for those still alive (torch 1.13 waits a fixed 30 s):

    python3 torchrun_with_grace.py SECONDS [torchrun's arguments]

test_torch_faults.py's stopped ranks keep that SIGTERM pending, so each of its stop jobs would
otherwise spend 30 s waiting on nothing. Everything else is torchrun's own code.
"""
import sys

from torch.distributed.elastic.multiprocessing import api
from torch.distributed.run import main

GRACE_S = float(sys.argv.pop(1))
_close = api.PContext.close


def _close_with_grace(self, death_sig=None, timeout=30):
    _close(self, death_sig, timeout=min(timeout, GRACE_S))


api.PContext.close = _close_with_grace

if __name__ == "__main__":
    main()
