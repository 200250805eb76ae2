"""llm-sandbox's pool exceptions, with its arguments and messages."""

__all__ = ["PoolExhaustedError", "PoolClosedError", "PoolHealthCheckError",
           "SessionNotOpenError"]


class PoolExhaustedError(Exception):
    def __init__(self, pool_size, timeout=None):
        if timeout is not None:
            message = ("All %s containers in pool are busy and timeout of %ss exceeded"
                       % (pool_size, timeout))
        else:
            message = "All %s containers in pool are busy" % pool_size
        super().__init__(message)
        self.pool_size = pool_size
        self.timeout = timeout


class PoolClosedError(Exception):
    def __init__(self):
        super().__init__("Container pool has been closed")


class PoolHealthCheckError(Exception):
    def __init__(self, container_id, reason):
        super().__init__("Health check failed for container %s: %s" % (container_id, reason))
        self.container_id = container_id
        self.reason = reason


class SessionNotOpenError(RuntimeError):
    def __init__(self):
        super().__init__("Session not open - call open() first or use context manager")
