import ArgumentParser
import Foundation
import OAuthFlow

extension OAuthFlowCommand {
    struct Logout: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "logout",
            abstract: "Revoke the session's tokens at the provider, then delete the stored session.",
            discussion: "The session is deleted even when revocation fails; the command then exits 1 and says what the server did.")

        @OptionGroup var session: SessionOptions

        func run() async throws {
            let (result, provider) = try await session.withManager { manager, _, provider in
                (try await manager.signOut(), provider)
            }
            let name = Output.line(provider.displayName)
            if !result.revocationAvailable {
                Output.stderr("\(name) has no revocation endpoint; the tokens stay valid until they expire.\n")
            }
            if let failure = result.revocationError {
                Output.stderr("Deleted the local session, but revocation failed: \(Output.line(failure))\n")
                if let advice = Advice.revocationFailed(failure) { Output.stderr("hint: \(advice)\n") }
                throw ExitCode.failure
            }
            Output.stderr("Signed out of \(name)\(result.revocationAvailable ? "; tokens revoked" : "").\n")
        }
    }
}
