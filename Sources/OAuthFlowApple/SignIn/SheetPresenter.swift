import Foundation
import OAuthFlow

/// The app's presenter: the provider's page in the authentication sheet, the request pushed again first when it
/// expired before the sheet opened (RFC 9126 §2.2), and the redirect the sheet ends on finished.
struct SheetPresenter: SignInRun.Presenter {
    let authenticator: any WebAuthenticator
    let prefersEphemeral: Bool
    let events: @Sendable (AppSignIn.Event) -> Void

    func present(_ pending: PendingAuthorization, of run: SignInRun) async throws -> OAuthClient.SignInOutcome {
        var pending = pending
        events(.started(requestExpiresAt: pending.requestExpiresAt))
        if let renewed = try await run.renewed(pending) {
            pending = renewed
            events(.pushedRequestRenewed)
        }
        let callback = try await authenticator.authenticate(
            at: pending.url, redirectURI: pending.redirectURI, prefersEphemeral: prefersEphemeral)
        return try await run.client.finishSignIn(.callback(callback), pending: pending) { events(.exchangingCode) }
    }
}
