import Foundation
import OAuthFlow

/// The one outcome of one sign-in sheet (its redirect URL, or an Apple ID credential), handed to its waiter once, whoever finishes first: the session's completion
/// handler, the task's cancellation, or a newer sign-in that replaces the sheet.
///
/// Apple documents only that `ASWebAuthenticationSession.cancel()` dismisses the sheet, not that the completion
/// handler then runs; so a cancellation finishes the wait itself (as AppAuth and Auth0.swift do), and a handler call
/// that follows is ignored. Compiled and tested on Linux; `SystemWebAuthenticator` only wires it to the session.
final class WebAuthenticationOutcome<Value: Sendable>: Sendable {
    private enum State {
        /// Nothing yet, no waiter yet.
        case pending
        /// A waiter, no outcome yet.
        case waiting(CheckedContinuation<Value, any Error>)
        /// The outcome, its waiter not yet there (finished before the wait began).
        case finished(Result<Value, any Error>)
        /// Handed to its waiter.
        case delivered
    }

    private let state = Locked(State.pending)

    /// Whether an outcome is known (delivered or waiting for its waiter).
    var isFinished: Bool {
        state.withLock { state in
            switch state {
            case .pending, .waiting: false
            case .finished, .delivered: true
            }
        }
    }

    /// Waits with `continuation`: resumed at once when the outcome is already known, else by ``finish(_:)``.
    /// A second waiter is resumed at once with `FlowError` `alreadyCompleted`.
    func hand(to continuation: CheckedContinuation<Value, any Error>) {
        let ready: Result<Value, any Error>? = state.withLock { state in
            switch state {
            case .pending:
                state = .waiting(continuation)
                return nil
            case .finished(let outcome):
                state = .delivered
                return outcome
            case .waiting, .delivered:
                return .failure(FlowError(.alreadyCompleted, "this sign-in sheet already has a waiter"))
            }
        }
        if let ready { continuation.resume(with: ready) }
    }

    /// Finishes with `outcome`, the first time only.
    ///
    /// - Returns: Whether this call finished it (false when it was already finished: the outcome is ignored).
    @discardableResult
    func finish(_ outcome: Result<Value, any Error>) -> Bool {
        let waiter: CheckedContinuation<Value, any Error>?? = state.withLock { state in
            switch state {
            case .pending:
                state = .finished(outcome)
                return .some(nil)
            case .waiting(let continuation):
                state = .delivered
                return .some(continuation)
            case .finished, .delivered:
                return nil
            }
        }
        guard let waiter else { return false }
        waiter?.resume(with: outcome)
        return true
    }
}
