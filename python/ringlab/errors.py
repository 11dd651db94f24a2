"""ringlab's failures as Python exceptions.

Every exception the library raises is a ringlab.Error: str(error) is ringlab's one-line message
(naming the value and what is valid), error.code its ringlab.ErrorCode. Each code has its own
subclass, which also derives from the built-in exception a Python program would expect
(InvalidArgumentError is a ValueError, TimeoutError the built-in TimeoutError, PeerLostError a
ConnectionError), so that `except ValueError` keeps working.
"""

import builtins

from ringlab._ringlab import ErrorCode


class Error(Exception):
    """A ringlab failure; .code is its ringlab.ErrorCode."""

    code = None

    def __init__(self, message, code=None):
        super().__init__(message)
        if code is not None:
            self.code = code


class InvalidArgumentError(Error, ValueError):
    """Bad input: a value out of range, a wrong dtype, buffers that do not match."""

    code = ErrorCode.InvalidArgument


class MismatchError(Error):
    """Ranks disagreed on a call (count, dtype, op, algorithm)."""

    code = ErrorCode.Mismatch


class TimeoutError(Error, builtins.TimeoutError):
    """A message did not arrive within the timeout."""

    code = ErrorCode.Timeout


class PeerLostError(Error, ConnectionError):
    """Another rank failed or went away."""

    code = ErrorCode.PeerLost


class TransportError(Error):
    """The transport failed (a socket, a shared-memory segment, MPI)."""

    code = ErrorCode.Transport


class InternalError(Error):
    """A bug in ringlab."""

    code = ErrorCode.Internal


class UnreliableError(Error):
    """A measurement too noisy to use: measure again, longer or with larger sizes."""

    code = ErrorCode.Unreliable


_BY_CODE = {cls.code: cls for cls in (InvalidArgumentError, MismatchError, TimeoutError,
                                      PeerLostError, TransportError, InternalError,
                                      UnreliableError)}


def from_code(code, message):
    """The exception for a ringlab::Error (called by the bindings)."""
    return _BY_CODE.get(code, Error)(message, code)
