import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Test helper: ends a worker process when the test process that started it is gone.
///
/// A test process that crashes or is killed cannot stop its workers, and a worker such as
/// StoreWriter loops forever: left behind, it takes a core from every later run. Each worker
/// calls ``start()`` first; a thread then checks twice a second whether the worker has been
/// handed to another parent, and exits at once when it has.
public enum ParentWatch {
    public static func start() {
        let parent = getppid()
        let thread = Thread {
            while getppid() == parent { usleep(500_000) }
            _exit(3)
        }
        thread.start()
    }
}
