import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A program started for a test, with its output read as it comes.
///
/// Foundation's `Process` with `readabilityHandler` on Linux registers each pipe with libdispatch, whose
/// event loop crashes (SIGSEGV in `_dispatch_event_loop_drain`) when many pipes come and go while tests run
/// in parallel. This runner uses `posix_spawn`, pipes opened close-on-exec (a child never inherits another
/// test's pipe and keeps it open), one plain thread per stream doing blocking reads, and one thread waiting
/// for the exit: nothing in it touches a dispatch source. (Linux only, as the test suite is.)
public final class ChildProcess: @unchecked Sendable {
    /// How a process ended.
    public enum Termination: Equatable, Sendable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)

        /// The exit status, or the signal's number for a process a signal ended.
        public var status: Int32 {
            switch self {
            case .exited(let code): code
            case .signalled(let signal): signal
            }
        }

        public var description: String {
            switch self {
            case .exited(let code): "exit \(code)"
            case .signalled(let signal): "signal \(signal)"
            }
        }
    }

    public enum SpawnError: Error, CustomStringConvertible {
        case failed(String, Int32)

        public var description: String {
            switch self {
            case .failed(let what, let code): "\(what) failed: \(String(cString: strerror(code)))"
            }
        }
    }

    public let pid: pid_t
    private let condition = NSCondition()
    private var outData = Data()
    private var errData = Data()
    private var openStreams = 2
    private var termination: Termination?
    private var input: Int32?

    /// Starts `executable` with `arguments` in `directory`, the environment being this process's with `environment`
    /// laid over it and the variables in `removing` taken out. With `input`, the child's stdin is a pipe `write(_:)`
    /// feeds; without, it reads /dev/null.
    public init(_ executable: URL, _ arguments: [String], directory: URL? = nil, environment: [String: String] = [:],
                removing: Set<String> = [], input: Bool = false) throws {
        var merged = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        for key in removing { merged[key] = nil }
        let out = try Self.pipe(), err = try Self.pipe()
        let stdin = input ? try Self.pipe() : nil

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdin {
            posix_spawn_file_actions_adddup2(&actions, stdin.read, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, out.write, 1)
        posix_spawn_file_actions_adddup2(&actions, err.write, 2)
        if let directory {
            let code = LinuxCalls.addChdir(&actions, directory.path)
            guard code == 0 else { throw SpawnError.failed("changing to \(directory.path)", code) }
        }

        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var child = pid_t()
        let code = posix_spawn(&child, executable.path, &actions, nil, argv, envp)
        close(out.write)
        close(err.write)
        if let stdin { close(stdin.read) }
        guard code == 0 else {
            close(out.read)
            close(err.read)
            if let stdin { close(stdin.write) }
            throw SpawnError.failed("starting \(executable.path)", code)
        }
        pid = child
        self.input = stdin?.write
        Thread.detachNewThread { [self] in drain(out.read, into: \.outData) }
        Thread.detachNewThread { [self] in drain(err.read, into: \.errData) }
        Thread.detachNewThread { [self] in reap() }
    }

    deinit {
        if let input { close(input) }
    }

    /// Runs a program to its end and returns its status and what it printed. The input is written, and the end
    /// waited for, on a thread of its own: no thread of Swift's cooperative pool is held while the child runs.
    public static func run(_ executable: URL, _ arguments: [String], directory: URL? = nil, environment: [String: String] = [:],
                           input: String? = nil) async throws -> (status: Int32, stdout: String, stderr: String) {
        let child = try ChildProcess(executable, arguments, directory: directory, environment: environment, input: input != nil)
        let termination = await child.offPool {
            if let input {
                child.write(input)
                child.closeInput()
            }
            return child.waitForOutputAndExit()
        }
        return (termination.status, child.stdout, child.stderr)
    }

    // MARK: Output

    public var stdout: String { condition.withLock { String(decoding: outData, as: UTF8.self) } }
    public var stderr: String { condition.withLock { String(decoding: errData, as: UTF8.self) } }

    /// The complete lines printed on stdout so far.
    public var lines: [String] {
        stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    /// The whitespace-separated words printed on stdout so far.
    public var words: [String] { stdout.split(whereSeparator: \.isWhitespace).map(String.init) }

    /// Waits (at most `limit`) until stdout holds something, or the process has ended, without holding a thread
    /// of Swift's cooperative pool.
    @discardableResult
    public func output(within limit: TimeInterval = 60) async -> Bool {
        await offPool { [self] in waitForOutput(within: limit) }
    }

    /// Blocks (at most `limit`) until stdout holds something, or the process has ended: only on a thread of its own.
    private func waitForOutput(within limit: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(limit)
        return condition.withLock {
            while outData.isEmpty && termination == nil {
                if !condition.wait(until: deadline) { break }  // blocks: only on a thread of its own (output(within:))
            }
            return !outData.isEmpty
        }
    }

    // MARK: Input

    /// Writes `text` to the child's stdin (started with `input: true`).
    public func write(_ text: String) {
        guard let input = condition.withLock({ self.input }) else { return }
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { writeBytes(input, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            bytes = bytes.dropFirst(written)
        }
    }

    /// Closes the child's stdin, so that it reads the end of its input.
    public func closeInput() {
        condition.withLock {
            if let input { close(input) }
            input = nil
        }
    }

    // MARK: Life

    /// Whether the process has not ended yet.
    public var isRunning: Bool { condition.withLock { termination == nil } }

    /// How it ended, once it has.
    public var ended: Termination? { condition.withLock { termination } }

    /// Sends `signal` unless the process has already been reaped (its pid could belong to another by then).
    public func send(_ signal: Int32) {
        condition.withLock {
            if termination == nil { _ = sendSignal(pid, signal) }
        }
    }

    /// Kills the process with SIGKILL and waits for it to end, without holding a thread of Swift's cooperative pool.
    public func kill() async {
        send(SIGKILL)
        _ = await exit()
    }

    /// Blocks until the process has ended: only on a thread of its own (`exit()`).
    private func waitForExit() -> Termination {
        condition.withLock {
            while termination == nil { condition.wait() }  // blocks: only on a thread of its own (exit())
            return termination ?? .exited(-1)
        }
    }

    /// Blocks until the process has ended and both its output streams have closed: only on a thread of its own
    /// (`finished()`, `run`).
    private func waitForOutputAndExit() -> Termination {
        condition.withLock {
            while termination == nil || openStreams > 0 { condition.wait() }  // blocks: only on a thread of its own
            return termination ?? .exited(-1)
        }
    }

    /// Waits for the end without holding a thread of Swift's cooperative pool.
    public func exit() async -> Termination {
        await offPool { [self] in waitForExit() }
    }

    /// Waits for the end and for both output streams to close (everything printed is in `stdout` and `stderr`),
    /// without holding a thread of Swift's cooperative pool.
    public func finished() async -> Termination {
        await offPool { [self] in waitForOutputAndExit() }
    }

    /// Runs the blocking `work` on a thread of its own (``OffPool``): a test holding a thread of the cooperative
    /// pool for a child's whole life starves every other test's tasks (connection pools, timers) meanwhile.
    private func offPool<Result: Sendable>(_ work: @escaping @Sendable () -> Result) async -> Result {
        await OffPool.run(work)
    }

    // MARK: Threads

    private func drain(_ descriptor: Int32, into stream: ReferenceWritableKeyPath<ChildProcess, Data>) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            condition.withLock {
                self[keyPath: stream].append(contentsOf: buffer[0..<count])
                condition.broadcast()
            }
        }
        close(descriptor)
        condition.withLock {
            openStreams -= 1
            condition.broadcast()
        }
    }

    private func reap() {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}  // blocks: on the reaper thread
        // WIFSIGNALED / WEXITSTATUS, which Swift does not import as functions.
        let signal = status & 0x7f
        let ended: Termination = signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
        condition.withLock {
            termination = ended
            condition.broadcast()
        }
    }

    private static func pipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        #if os(Linux)
        guard LinuxCalls.pipe2(&ends, O_CLOEXEC) == 0 else { throw SpawnError.failed("pipe2", errno) }
        #else
        // Darwin has no pipe2: the flag is set after; a spawn in between may inherit the pipe (tests only).
        guard Darwin.pipe(&ends) == 0 else { throw SpawnError.failed("pipe", errno) }
        for end in ends where fcntl(end, F_SETFD, FD_CLOEXEC) != 0 { throw SpawnError.failed("fcntl", errno) }
        #endif
        return (ends[0], ends[1])
    }
}

/// `write(2)`, named apart from `ChildProcess.write(_:)`.
private func writeBytes(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}

/// `kill(2)`, named apart from `ChildProcess.kill()`.
private func sendSignal(_ pid: pid_t, _ signal: Int32) -> Int32 {
    kill(pid, signal)
}

/// The GNU calls Swift's Glibc module does not import (they need `_GNU_SOURCE`), found at run time.
private enum LinuxCalls {
    #if os(Linux)
    typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
    static let pipe2: Pipe2 = symbol("pipe2")
    #endif
    typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    static let addChdir: AddChdir = symbol("posix_spawn_file_actions_addchdir_np")

    private static func symbol<Function>(_ name: String) -> Function {
        guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else {
            fatalError("the C library has no \(name)")
        }
        return unsafeBitCast(address, to: Function.self)
    }
}
