"""Where ringlab's shared buffers are mapped in this process, from /proc/self/maps. The shm
transport maps each buffer this rank allocates (Transport::allocateShared, a memfd named
"ringlab-buffer") read-write, and a peer's buffer read-only the first time it reads a message from
it in place: a read-only mapping is the trace that single copy ran (docs/transports.md)."""


def _mappings():
    """(start, end, permissions) of every ringlab buffer mapped here."""
    found = []
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split()
            if len(fields) >= 6 and fields[5].endswith("ringlab-buffer"):
                start, end = (int(x, 16) for x in fields[0].split("-"))
                found.append((start, end, fields[1]))
    return found


def in_own_shared_memory(tensor):
    """Whether the tensor's bytes lie in one buffer this rank allocated for its peers to read."""
    start = tensor.data_ptr()
    end = start + tensor.numel() * tensor.element_size()
    return any(s <= start and end <= e and perms.startswith("rw") for s, e, perms in _mappings())


def peer_buffers_mapped():
    """How many of its peers' buffers this process has mapped to read messages in place."""
    return sum(1 for _, _, perms in _mappings() if perms.startswith("r-"))
