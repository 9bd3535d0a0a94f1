#if CLI
import Foundation

/// The command's standard input, read on a thread of its own.
///
/// A read from a pipe waits until its writer (git, a shell pipeline) writes or closes it, for as long as that
/// takes. Made on a task, it would hold one of the few threads of Swift's cooperative pool (as many as there are
/// cores) all that time, and every other task of the command would wait behind it.
enum StandardInput {
    /// Everything until the writer closes its end.
    static func readToEnd() async -> Data {
        await onThreadOfItsOwn { FileHandle.standardInput.readDataToEndOfFile() }
    }

    /// What comes until the writer closes its end or `limit` bytes have come, whichever is first.
    ///
    /// - Parameter limit: The most bytes read; ask for one more than is allowed to tell an input that is too long.
    /// - Throws: When the read fails.
    static func read(atMost limit: Int) async throws -> Data {
        try await onThreadOfItsOwn {
            var data = Data()
            while data.count < limit, let chunk = try FileHandle.standardInput.read(upToCount: limit - data.count), !chunk.isEmpty {
                data.append(chunk)
            }
            return data
        }
    }

    /// Runs the blocking `work` on a new thread and resumes with what it returns or throws.
    private static func onThreadOfItsOwn<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Runs the blocking `work` on a new thread and resumes with what it returns.
    private static func onThreadOfItsOwn<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: work()) }
        }
    }
}
#endif
