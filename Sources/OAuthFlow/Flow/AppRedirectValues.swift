import Foundation

/// What an app's sign-in fills into the descriptor's redirect templates, beside its variables.
struct AppRedirectValues {
    let provider: Provider
    let clientID: String
    let bundleIdentifier: String?

    /// `template` with its placeholders filled; every one must have a value a URI can hold.
    func fill(_ template: String) throws -> String {
        try ProviderDescriptor.parameterParts(template).map { part -> String in
            switch part {
            case .text(let text): return String(text)
            case .variable(let name): return try value(name)
            }
        }.joined()
    }

    private func value(_ name: String) throws -> String {
        let value: String
        switch name {
        case "client_id": value = clientID
        case "reversed_client_id": value = clientID.split(separator: ".", omittingEmptySubsequences: false).reversed().joined(separator: ".")
        case "bundle_id":
            guard let bundleIdentifier, !bundleIdentifier.isEmpty else {
                throw FlowError(
                    .invalidRedirectURI,
                    "the app redirect of \(provider.displayName) names `{bundle_id}`: give the app's bundle identifier (`Bundle.main.bundleIdentifier`)"
                )
            }
            value = bundleIdentifier
        default:
            guard let given = provider.variables[name], !given.isEmpty else {
                throw FlowError(
                    .invalidRedirectURI,
                    "the app redirect of \(provider.displayName) names the variable `{\(name)}`, which has no value: set it in the client's variables"
                )
            }
            value = given
        }
        if value.isEmpty || ProviderDescriptor.holdsForbiddenInVariables(value) || value.contains(":") {
            throw FlowError(
                .invalidRedirectURI,
                "the value for `{\(name)}` in the app redirect of \(provider.displayName) holds a character a redirect URI cannot carry there: `\(TerminalText.escaped(value))`"
            )
        }
        return value
    }
}
