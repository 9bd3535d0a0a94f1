#if CLI
import ArgumentParser
import OAuthFlow

/// What a service token is asked for, and the client that asks: the flags of `token client`, `token exchange` and
/// `call --service`, declared once.
struct ServiceRequestOptions: ParsableArguments {
    @Option(name: .customLong("scope"), help: "A scope to ask for; repeat for each.")
    var scopes: [String] = []

    @Option(name: .customLong("resource"), help: "An API as an RFC 8707 resource (an absolute URI); repeat for each.")
    var resources: [String] = []

    @Option(name: .customLong("audience"), help: "An API as an audience (Auth0); repeat for each.")
    var audiences: [String] = []

    @Option(name: .customLong("client-id"), help: "The client id (default: OAUTHFLOW_<PROVIDER>_CLIENT_ID or the clients file).")
    var clientID: String?

    /// What the token is for.
    var request: OAuthClient.ServiceTokenRequest { OAuthClient.ServiceTokenRequest(scopes: scopes, resources: resources, audiences: audiences) }

    /// Whether no flag was given.
    var isEmpty: Bool { scopes.isEmpty && resources.isEmpty && audiences.isEmpty && clientID == nil }
}
#endif
