#if CLI
import ArgumentParser
import Foundation
import OAuthFlow
import OAuthFlowLoopback
import OAuthFlowMCPAuth

/// What every `oauthflow mcp` command takes: the server's URL, and how its authorization server is trusted and signed
/// in to.
struct MCPOptions: ParsableArguments {
    @Argument(help: "The MCP server's URL (https, or http to a loopback host).")
    var url: String

    @Option(name: .customLong("trust-metadata-origin"), help: "An origin whose protected-resource metadata the server may point at (repeatable).")
    var trustedOrigins: [String] = []

    @Option(
        name: .customLong("client-metadata-document"),
        help: "The https URL of this client's Client ID Metadata Document, used where the server takes one.")
    var clientMetadataDocument: String?

    @Option(help: "A fixed loopback port for the redirect, registered with it (for servers that compare redirect URIs exactly).")
    var port: Int?

    @Option(name: .customLong("provider"), help: "A descriptor that pins the authorization server its issuer names (repeatable).")
    var pinned: [String] = []

    @Flag(name: .customLong("pinned-only"), help: "Refuse an authorization server no --provider descriptor names.")
    var pinnedOnly = false

    @Flag(
        name: .customLong("legacy-discovery"),
        help: "Take a server without protected-resource metadata as MCP 2025-03-26 did: its origin is its authorization server.")
    var legacyDiscovery = false

    @OptionGroup var registry: RegistryOptions

    func validate() throws {
        guard let server = URL(string: url), server.scheme != nil, server.host != nil else { throw ValidationError("\(url) is not a URL") }
        for origin in trustedOrigins where URL(string: origin)?.host == nil {
            throw ValidationError("--trust-metadata-origin \(origin) is not a URL")
        }
        if let clientMetadataDocument, URL(string: clientMetadataDocument)?.host == nil {
            throw ValidationError("--client-metadata-document is not a URL")
        }
        if let port, !(1...65_535).contains(port) { throw ValidationError("--port must be between 1 and 65535") }
        if pinnedOnly, pinned.isEmpty { throw ValidationError("--pinned-only needs at least one --provider") }
    }

    /// The server's URL, checked by ``validate()``.
    var server: URL { URL(string: url) ?? URL(fileURLWithPath: "/") }

    /// Where `oauthflow mcp` keeps the clients it registered: `$XDG_STATE_HOME/oauthflow/mcp-clients`.
    static var registrations: FileClientRegistrationStore {
        FileClientRegistrationStore(directory: CommandEnvironment.store.directory.appendingPathComponent("mcp-clients", isDirectory: true))
    }

    /// The authorization every command runs: sessions in the CLI's store, registered clients beside them, the
    /// `--provider` descriptors pinned.
    ///
    /// - Throws: A descriptor that cannot be loaded or resolved.
    func authorization(
        browser: any BrowserOpener = NoBrowser(), timeout: Int = 300, events: @escaping @Sendable (LoopbackSignIn.Event) -> Void = { _ in }
    ) throws -> MCPAuthorization {
        // The sessions' directory first, 0700: the registered clients' directory is made inside it.
        try? FileManager.default.createDirectory(
            at: CommandEnvironment.store.directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // The command's front door: its store (the CLI's sessions), environment and `--provider` descriptors.
        let oauth = registry.oauth()
        var configuration = MCPAuthorization.Configuration(
            oauth: oauth, browser: browser, clientMetadataDocument: clientMetadataDocument.flatMap(URL.init(string:)),
            registrations: Self.registrations, clientName: "oauthflow")
        configuration.trustedMetadataOrigins = trustedOrigins.compactMap(URL.init(string:))
        configuration.redirectPort = port
        configuration.signInTimeout = .seconds(timeout)
        configuration.signInEvents = events
        configuration.pinnedProviders = try pinned.map { try oauth.resolve($0, variables: [:]) }
        configuration.requiresPinnedProvider = pinnedOnly
        configuration.legacyDiscovery = legacyDiscovery
        return MCPAuthorization(configuration)
    }
}
#endif
