#if CLI
import ArgumentParser
import Foundation
import OAuthFlow

extension OAuthFlowCommand.JWT {
    struct Decode: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "decode",
            abstract: "Print a JWT's header and payload; with --verify, check it against a provider's keys.",
            discussion: "Without --verify nothing is checked: anyone can write a token with any contents. Exit 1 when verification fails.")

        // Every word that is not an option is the token, so a garbled token starting with `-` is
        // reported as a bad token rather than as an unknown flag.
        @Argument(parsing: .allUnrecognized, help: "The token, or - to read it from standard input.")
        var tokenWords: [String] = []

        @Option(help: "Verify the signature, algorithm, issuer and expiry with this provider's JWKS.")
        var verify: String?

        @Option(name: .customLong("client-id"), help: "With --verify: also check the audience (and azp) against this client id.")
        var clientID: String?

        @Option(name: .customLong("var"), help: "A provider variable as name=value, for --verify.")
        var variables: [String] = []

        @OptionGroup var registryOptions: RegistryOptions

        func validate() throws {
            guard tokenWords.count == 1 else {
                throw ValidationError(tokenWords.isEmpty ? "give the token to decode, or - to read it from standard input" : "give one token")
            }
            try VariableOptions.validate(variables)
        }

        func run() async throws {
            try await Output.running {
                var text = tokenWords[0]
                if text == "-" {
                    text = String(decoding: await StandardInput.readToEnd(), as: UTF8.self)
                }
                let secret = Secret(text.trimmingCharacters(in: .whitespacesAndNewlines))
                let parts = try IDTokenValidator.decodeUnverified(secret.value)
                if let name = verify {
                    try await check(secret, against: name)
                } else {
                    Output.stderr("UNVERIFIED: the signature was not checked; use --verify NAME to check it.\n")
                }
                Output.stdout("header:\n" + (try Output.json(parts.header)) + "payload:\n" + (try Output.json(parts.claims)))
            }
        }

        /// Verifies the token with the provider's keys; a failure of any kind is `NOT VERIFIED`, exit 1.
        private func check(_ token: Secret, against name: String) async throws {
            do {
                let oauth = registryOptions.oauth()
                let provider = try await oauth.resolve(name, variables: VariableOptions.values(variables)).discovered(
                    environment: oauth.environment)
                if let clientID {
                    let validator = IDTokenValidator(provider: provider, clientID: clientID)
                    _ = try await validator.validate(token, nonce: nil, accessToken: nil)
                } else {
                    let validator = IDTokenValidator(provider: provider, clientID: "")
                    _ = try await validator.verifySignatureAndIssuer(token)
                }
                Output.stderr(
                    "Verified against \(Output.line(provider.displayName)): algorithm, signature, issuer, expiry\(clientID == nil ? "" : ", audience") checked.\n"
                )
            } catch {
                Output.stderr("NOT VERIFIED: \(Output.line(error))\n")
                throw ExitCode.failure
            }
        }
    }
}
#endif
