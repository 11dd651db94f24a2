#pragma once
// What the kernel says of another process on this host.

namespace ringlab {

// True while process `pid` is stopped by a signal (SIGSTOP, Ctrl-Z) or by a tracer; false when it
// runs, sleeps, has exited, or cannot be seen.
bool isProcessStopped(int pid);

}  // namespace ringlab
