import Foundation

/// Where a test's blocking calls run: on a thread of their own, never on a thread of Swift's cooperative pool.
///
/// The pool has as many threads as cores (two on the CI machines). A test that blocks one of them in a system call
/// (a `connect` to a listener whose backlog is full, a `poll` with a timeout, a wait for a child process) stalls
/// every task of the whole test process meanwhile: other tests' connection pools, their deadlines, their servers.
/// A PostgreSQL store's 10 s deadline then fires with "did not answer within" while the server waited for a
/// client that never got to run. Every blocking call a test makes goes through ``run(_:)``;
/// `BlockingCallTests` fails on one that does not.
public enum OffPool {
    /// Runs the blocking `work` on a new thread and resumes with what it returns, holding no thread of the pool.
    public static func run<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: work()) }
        }
    }

    /// Runs the blocking `work` on a new thread and resumes with what it returns or throws.
    public static func run<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
        }
    }
}
