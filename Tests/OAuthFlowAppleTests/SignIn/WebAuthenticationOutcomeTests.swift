import Foundation
import Testing

@testable import OAuthFlow
@testable import OAuthFlowApple

/// The one outcome of a sign-in sheet (issue 61 item 8): a cancellation ends the wait itself, whatever the system's
/// completion handler does afterwards, and nothing resumes the waiter twice.
@Suite struct WebAuthenticationOutcomeTests {
    let callback = URL(string: "com.example.app:/oauth2redirect?code=c&state=s")!

    /// A task waiting on an outcome, as `SystemWebAuthenticator` does, whose result is read without waiting for ever:
    /// a wait that never ends is a failure here, not a hung test run.
    final class Waiter: Sendable {
        private let result = Locked<Result<URL, any Error>?>(nil)

        init(_ outcome: WebAuthenticationOutcome<URL>) {
            Task { [result] in
                let ended: Result<URL, any Error>
                do {
                    ended = .success(try await withCheckedThrowingContinuation { outcome.hand(to: $0) })
                } catch {
                    ended = .failure(error)
                }
                result.withLock { $0 = ended }
            }
        }

        /// The result, once the wait ended; nil (and an issue) when it did not within five seconds.
        func value() async -> Result<URL, any Error>? {
            for _ in 0..<500 {
                if let ended = result.current { return ended }
                try? await Task.sleep(nanoseconds: 10_000_000)
            }
            Issue.record("the wait did not end: a sign-in that hangs")
            return nil
        }

        func url() async throws -> URL? { try await value()?.get() }
    }

    static func waiter(_ outcome: WebAuthenticationOutcome<URL>) -> Waiter { Waiter(outcome) }

    /// Waits until the waiter is in place (the task started and handed over its continuation).
    static func settle() async {
        for _ in 0..<50 { await Task.yield() }
        try? await Task.sleep(nanoseconds: 20_000_000)
    }

    @Test func aCancelEndsTheWaitAndTheCompletionAfterItIsIgnored() async throws {
        let outcome = WebAuthenticationOutcome<URL>()
        let waiting = Self.waiter(outcome)
        await Self.settle()
        #expect(outcome.finish(.failure(CancellationError())))
        await #expect(throws: CancellationError.self) { _ = try await waiting.url() }
        // The system's completion handler, if it runs at all, comes later: ignored, not a second resume.
        #expect(!outcome.finish(.success(callback)))
        #expect(!outcome.finish(.failure(FlowError.cancelled("the sheet closed"))))
    }

    @Test func theCompletionWinsOverALaterCancel() async throws {
        let outcome = WebAuthenticationOutcome<URL>()
        let waiting = Self.waiter(outcome)
        await Self.settle()
        #expect(outcome.finish(.success(callback)))
        #expect(!outcome.finish(.failure(CancellationError())))
        #expect(try await waiting.url() == callback)
    }

    @Test func aSecondCancelIsIgnored() async throws {
        let outcome = WebAuthenticationOutcome<URL>()
        let waiting = Self.waiter(outcome)
        await Self.settle()
        #expect(outcome.finish(.failure(CancellationError())))
        #expect(!outcome.finish(.failure(CancellationError())))
        await #expect(throws: CancellationError.self) { _ = try await waiting.url() }
        #expect(outcome.isFinished)
    }

    /// A task cancelled before the sheet opened: its cancellation handler runs before the wait begins, which then
    /// ends at once.
    @Test func aCancelBeforeTheWaitEndsItAtOnce() async throws {
        let outcome = WebAuthenticationOutcome<URL>()
        #expect(outcome.finish(.failure(CancellationError())))
        #expect(outcome.isFinished)
        await #expect(throws: CancellationError.self) { _ = try await Self.waiter(outcome).url() }
        // A second waiter is told, not left hanging.
        let error = try await #require(throws: FlowError.self) { _ = try await Self.waiter(outcome).url() }
        #expect(error.code == .alreadyCompleted)
    }

    // MARK: - The window the sheet is presented from

    struct Window: Equatable {
        var name: String
        var isKey = false
    }

    struct Scene {
        var active: Bool
        var windows: [Window]
    }

    static func choose(_ scenes: [Scene]) -> String? {
        PresentationWindow.choose(among: scenes, isForegroundActive: \.active, windows: \.windows, isKey: \.isKey)?.name
    }

    /// A background scene listed first, or one whose window is key, is passed over for the foreground-active one.
    @Test func theSheetOpensFromTheKeyWindowOfAForegroundActiveScene() {
        let background = Scene(active: false, windows: [Window(name: "background", isKey: true)])
        let active = Scene(active: true, windows: [Window(name: "back"), Window(name: "key", isKey: true), Window(name: "front")])
        #expect(Self.choose([background, active]) == "key")
        #expect(Self.choose([Scene(active: true, windows: [Window(name: "a"), Window(name: "b")])]) == "b", "no key window: the front one")
        // Two foreground-active scenes (iPad split view): the one with the key window.
        let other = Scene(active: true, windows: [Window(name: "other")])
        #expect(Self.choose([other, active]) == "key")
        #expect(Self.choose([background]) == nil, "no foreground scene: no window, said before the sheet opens")
        #expect(Self.choose([]) == nil, "made before any scene connected")
    }

    // MARK: - What a canceledLogin means

    /// `canceledLogin` with a reason in `userInfo` is the system refusing (a claimed https redirect without its
    /// associated domain), not the user's cancel that an app silently ignores.
    @Test func aCanceledLoginWithAReasonIsNotTheUsersCancel() {
        let domain = ScriptedUser.sessionErrorDomain
        let refused = NSError(
            domain: domain, code: 1,
            userInfo: [NSLocalizedFailureReasonErrorKey: "Using HTTPS callbacks requires Associated Domains using the webcredentials service type"])
        let result = WebAuthenticationCallback.outcome(url: nil, error: refused, domain: domain, cancelled: 1)
        guard case .failure(let error as FlowError) = result else {
            Issue.record("not a FlowError: \(result)")
            return
        }
        #expect(error.code == .invalidRedirectURI && error.message.contains("ended the sign-in sheet"), "\(error.message)")
        #expect(WebAuthenticationCallbackTests.code(WebAuthenticationCallback.outcome(url: nil, error: NSError(domain: domain, code: 1), domain: domain, cancelled: 1)) == .cancelled)
    }
}
