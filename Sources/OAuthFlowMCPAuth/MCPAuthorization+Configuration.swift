#if NIO
import Foundation
import OAuthFlow
import OAuthFlowLoopback

extension MCPAuthorization {
    /// Where an authorization keeps sessions and registered clients, how it signs the user in, and which clients it uses.
    public struct Configuration: Sendable {
        /// The front door every client of the authorization is made by (sharing its discovery cache for each provider), and
        /// whose store and environment it uses: the host's own (``init(oauth:browser:clientMetadataDocument:registrations:clientName:)``),
        /// or one over the store and environment given.
        public let oauth: OAuth
        /// Where sessions are kept, one per authorization server and MCP server: the front door's store (a
        /// `FileTokenStore`, a PostgreSQL store).
        public var store: any TokenStore { oauth.store }
        /// Opens the authorization URL (`SystemBrowser` for the user's browser).
        public var browser: any BrowserOpener
        /// The front door's transport (its deadline and size cap apply to every request), clock and logger.
        public var environment: OAuthEnvironment { oauth.environment }
        /// Clients registered beforehand, by the authorization server's issuer exactly as its metadata writes it: used
        /// before any other (MCP authorization, "Client Registration Approaches"), and preferred when a server names
        /// several authorization servers. Each belongs to the issuer it is given under (its
        /// `ClientSettings.authorizationServer` is set to it; one that names another is refused): its secret,
        /// key and assertion go to no other server. With an assertion among them, or ``clientCredentials``, an MCP
        /// server whose metadata names none of these issuers is refused (`wrong_authorization_server`).
        public var clients: [String: ClientSettings]
        /// The https URL of this client's Client ID Metadata Document, used as its `client_id` at authorization servers
        /// that say `client_id_metadata_document_supported`; its `redirect_uris` must take the loopback redirect
        /// (`http://127.0.0.1/callback`). Nil registers with Dynamic Client Registration instead.
        public var clientMetadataDocument: URL?
        /// Where clients registered with Dynamic Client Registration are kept, so that a server is registered once.
        public var registrations: any ClientRegistrationStore
        /// The `client_name` sent when registering.
        public var clientName: String
        /// Origins besides each MCP server's own whose protected-resource metadata a server may point at; empty trusts none.
        public var trustedMetadataOrigins: [URL]
        /// A fixed port for the loopback redirect, registered with it; nil listens on any free port and registers the
        /// redirect URI without a port (RFC 8252 §7.3).
        public var redirectPort: Int?
        /// How long a sign-in waits for the browser to come back.
        public var signInTimeout: Duration
        /// Receives what each sign-in does (the URL to open, the redirect URI listened on), for the host to show.
        public var signInEvents: @Sendable (LoopbackSignIn.Event) -> Void
        /// Providers pinned by descriptor, which `oauthflow lint` reviews: an authorization server whose issuer one of
        /// them names exactly is signed in to as that descriptor says (its client authentication, default scopes,
        /// `pushed`, checks; the endpoints it leaves out come from the server's metadata) instead of as drafted from
        /// that metadata. Its session is stored under the descriptor's id. A pin that asks for DPoP the server offers
        /// is refused when requests carry no DPoP proofs.
        public var pinnedProviders: [Provider]
        /// Whether an authorization server no pinned provider names is refused (`unpinned_server`), so that MCP
        /// servers are signed in to only where reviewed descriptors say.
        public var requiresPinnedProvider: Bool
        /// Whether sessions are DPoP-bound (RFC 9449) at authorization servers that offer DPoP, once requests carry proofs
        /// (`MCPAuthorizer.requestModifier` on the transport, or ``MCPAuthorization/dpopProof(method:url:authorization:)``).
        /// True by default; false asks for Bearer tokens everywhere.
        public var dpop: Bool
        /// The company's identity provider, when sign-ins go through it (MCP's enterprise-managed authorization): the user
        /// signs in there once, and each MCP server's token comes from an Identity Assertion JWT Authorization Grant it
        /// issues for that server's authorization server, presented there as a JWT bearer grant; no browser visits the
        /// MCP server's authorization server. Nil signs in at each authorization server.
        public var enterpriseIdentityProvider: EnterpriseIdentityProvider?

        /// Whether this host acts on its own behalf: the client given in ``clients`` for an authorization server's issuer
        /// gets tokens for itself with the client credentials grant (RFC 6749 §4.4; MCP extension
        /// `io.modelcontextprotocol/oauth-client-credentials`), with its secret or its key, and no user signs in. A server
        /// whose authorization server has no client given is refused (`no_client`). False by default.
        public var clientCredentials: Bool

        /// Whether a server that publishes no protected-resource metadata is taken as MCP 2025-03-26 took it: its origin
        /// is its authorization server, at that origin's metadata or default endpoints. MCP 2026-07-28 requires the
        /// metadata, so this is false by default, and such a server is then used only when it says it speaks nothing
        /// newer than 2025-03-26 (in its answer to the first request of ``MCPAuthorization/signIn(to:scopes:)``,
        /// ``MCPAuthorization/validTokens(for:)`` or ``MCPAuthorization/inspect(_:)``).
        public var legacyDiscovery: Bool

        /// How many step-ups (a 403 `insufficient_scope` answered with a sign-in for more scopes) one operation of one
        /// server may have; 2 by default. A step-up for scopes already signed in for is never repeated.
        public var maximumStepUps: Int

        /// - Parameters:
        ///   - store: Where sessions are kept.
        ///   - browser: Opens the authorization URL.
        ///   - environment: The transport, clock and logger.
        ///   - clients: Clients registered beforehand, by issuer.
        ///   - clientMetadataDocument: The URL of this client's Client ID Metadata Document, if it publishes one.
        ///   - registrations: Where dynamically registered clients are kept; in memory by default.
        ///   - clientName: The `client_name` sent when registering.
        public init(
            store: any TokenStore, browser: any BrowserOpener, environment: OAuthEnvironment = OAuthEnvironment(),
            clients: [String: ClientSettings] = [:], clientMetadataDocument: URL? = nil,
            registrations: any ClientRegistrationStore = InMemoryClientRegistrationStore(), clientName: String = "OAuthFlow MCP client"
        ) {
            self.init(
                oauth: .over(store: store, environment: environment), browser: browser, clients: clients,
                clientMetadataDocument: clientMetadataDocument, registrations: registrations, clientName: clientName)
        }

        init(
            oauth: OAuth, browser: any BrowserOpener, clients: [String: ClientSettings], clientMetadataDocument: URL?,
            registrations: any ClientRegistrationStore, clientName: String
        ) {
            self.oauth = oauth
            self.browser = browser
            self.clients = clients
            self.clientMetadataDocument = clientMetadataDocument
            self.registrations = registrations
            self.clientName = clientName
            self.trustedMetadataOrigins = []
            self.redirectPort = nil
            self.signInTimeout = .seconds(300)
            self.signInEvents = { _ in }
            self.pinnedProviders = []
            self.requiresPinnedProvider = false
            self.dpop = true
            self.clientCredentials = false
            self.legacyDiscovery = false
            self.maximumStepUps = 2
            self.enterpriseIdentityProvider = nil
        }
    }
}

extension MCPAuthorization.Configuration {
    /// A configuration made from the front door a host already holds: the same session store, environment (its
    /// transport, clock and logger) and discovery caches.
    ///
    /// - Parameters:
    ///   - oauth: The host's front door.
    ///   - browser: Opens the authorization URL.
    ///   - clientMetadataDocument: The URL of this client's Client ID Metadata Document, if it publishes one.
    ///   - registrations: Where dynamically registered clients are kept; in memory by default.
    ///   - clientName: The `client_name` sent when registering.
    public init(
        oauth: OAuth, browser: any BrowserOpener, clientMetadataDocument: URL? = nil,
        registrations: any ClientRegistrationStore = InMemoryClientRegistrationStore(), clientName: String = "OAuthFlow MCP client"
    ) {
        self.init(
            oauth: oauth, browser: browser, clients: [:], clientMetadataDocument: clientMetadataDocument, registrations: registrations,
            clientName: clientName)
    }
}
#endif
