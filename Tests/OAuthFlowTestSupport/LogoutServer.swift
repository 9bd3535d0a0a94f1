import Foundation
import OAuthFlow
import Testing

/// The idpyoidc logout OP `scripts/servers.sh` starts (Tests/LogoutServer): OpenID Connect
/// RP-Initiated Logout 1.0, Back-Channel Logout 1.0 and Front-Channel Logout 1.0, with a login form,
/// single sign-on across clients, and a scripted browser (`agent.py`) whose cookie jar persists between
/// runs. Tests/LogoutServer/README.md says what every endpoint does.
///
/// A logout at this server ends every session of the user (idpyoidc logs out the user, not one browser):
/// tests that run in parallel and log out sign in as different users (`alice`, `bob`, `carol`, `dave`,
/// `erin`), or register a client of their own (`register(clientID:…, like:)`) when they change its
/// registration.
public struct TestLogoutServer: Decodable, Sendable {
    public let issuer: URL
    public let authorizationEndpoint: URL
    public let tokenEndpoint: URL
    public let endSessionEndpoint: URL
    public let jwksURI: URL
    /// Where a logout without `post_logout_redirect_uri` ends.
    public let loggedOutPage: URL
    public let clientsEndpoint: URL
    public let logoutEndpoint: URL
    public let statsURL: URL
    /// The virtualenv's Python, which runs `agent`.
    public let python: String
    /// Tests/LogoutServer/agent.py, the scripted browser.
    public let agent: String
    /// Every user's password, by name.
    public let users: [String: String]
    /// `web` (`logout-web`, confidential, `client_secret_basic`) and `cli` (`logout-cli`, public).
    public let clients: [String: Client]
    /// The logout-server.json this was read from (the agent reads the passwords there).
    public var file: String = ""

    /// A client's registration, as logout-server.json and `POST /test/clients/ID` describe it.
    public struct Client: Decodable, Sendable {
        public let clientID: String
        public let authMethod: String
        public let clientSecret: String?
        public let redirectURIs: [String]
        public let postLogoutRedirectURIs: [String]
        public let backchannelLogoutURI: String?
        public let backchannelLogoutSessionRequired: Bool?
        public let frontchannelLogoutURI: String?
        public let frontchannelLogoutSessionRequired: Bool?

        enum CodingKeys: String, CodingKey {
            case clientID = "client_id", authMethod = "auth_method", clientSecret = "client_secret"
            case redirectURIs = "redirect_uris", postLogoutRedirectURIs = "post_logout_redirect_uris"
            case backchannelLogoutURI = "backchannel_logout_uri", backchannelLogoutSessionRequired = "backchannel_logout_session_required"
            case frontchannelLogoutURI = "frontchannel_logout_uri", frontchannelLogoutSessionRequired = "frontchannel_logout_session_required"
        }
    }

    enum CodingKeys: String, CodingKey {
        case issuer, authorizationEndpoint = "authorization_endpoint", tokenEndpoint = "token_endpoint"
        case endSessionEndpoint = "end_session_endpoint", jwksURI = "jwks_uri", loggedOutPage = "logged_out_page"
        case clientsEndpoint = "clients_endpoint", logoutEndpoint = "logout_endpoint", statsURL = "stats"
        case python, agent, users, clients
    }

    public static let current: TestLogoutServer? = {
        guard let path = ProcessInfo.processInfo.environment["OAUTHFLOW_TEST_LOGOUT_OP"], let data = FileManager.default.contents(atPath: path),
            var server = try? JSONDecoder().decode(TestLogoutServer.self, from: data)
        else { return nil }
        server.file = path
        return server
    }()

    /// Run end-to-end tests when the server is there, and always in CI (where its absence is a failure).
    public static var shouldRun: Bool { current != nil || ProcessInfo.processInfo.environment["CI"] != nil }
    public static let skipReason: Comment = "needs the idpyoidc logout server: run `bash scripts/test.sh`"

    /// The server, or a recorded failure (in CI) when it is missing.
    public static func require() throws -> TestLogoutServer {
        try #require(current, "OAUTHFLOW_TEST_LOGOUT_OP is not set: the logout server was not started (run `bash scripts/test.sh`)")
    }

    public func client(_ name: String) throws -> Client {
        try #require(clients[name], "the logout server has no client `\(name)`")
    }

    /// The confidential web client (`client_secret_basic`); its redirect URIs are registered at run time.
    public var webClientID: String { clients["web"]?.clientID ?? "logout-web" }
    public var webClientSecret: Secret { Secret(clients["web"]?.clientSecret ?? "") }
    /// The public native client: `http://127.0.0.1:ANY_PORT/callback` to sign in and
    /// `http://127.0.0.1:ANY_PORT/logged-out` after logout (also on `localhost`), without registering.
    public var cliClientID: String { clients["cli"]?.clientID ?? "logout-cli" }

    /// A user's password (`alice`, `bob`, `carol`, `dave`, `erin`).
    public func password(for user: String = "alice") -> String? { users[user] }

    // MARK: Registration

    /// Sets a client's registration, as `POST /test/clients/ID` does. `redirectURIs` and `postLogoutRedirectURIs`
    /// replace the registered ones when given (a loopback URI without a port matches any port); the logout URIs
    /// are set as given, nil registering none. A `clientID` the server does not know becomes a new client
    /// registered like `like` (default `logout-web`), with a secret of its own (in the answer).
    @discardableResult
    public func register(
        clientID: String, redirectURIs: [URL]? = nil, postLogoutRedirectURIs: [URL]? = nil, backchannelLogoutURI: URL? = nil,
        frontchannelLogoutURI: URL? = nil, sessionRequired: Bool = true, like template: String? = nil
    ) async throws -> Client {
        var changes: [String: JSONValue] = [
            "backchannel_logout_uri": backchannelLogoutURI.map { .string($0.absoluteString) } ?? .null,
            "frontchannel_logout_uri": frontchannelLogoutURI.map { .string($0.absoluteString) } ?? .null,
            "backchannel_logout_session_required": .bool(sessionRequired),
            "frontchannel_logout_session_required": .bool(sessionRequired),
        ]
        if let redirectURIs { changes["redirect_uris"] = .array(redirectURIs.map { .string($0.absoluteString) }) }
        if let postLogoutRedirectURIs { changes["post_logout_redirect_uris"] = .array(postLogoutRedirectURIs.map { .string($0.absoluteString) }) }
        if let template { changes["like"] = .string(template) }
        let url = try #require(URL(string: clientsEndpoint.absoluteString + clientID))
        let response = try await DefaultHTTPTransport(timeout: 10).send(
            TransportRequest(method: .post, url: url, headers: ["Content-Type": "application/json"], body: try JSONEncoder().encode(changes)))
        guard response.status == 200 else {
            throw ServerFailure(message: "registering \(clientID): HTTP \(response.status) \(String(decoding: response.body, as: UTF8.self))")
        }
        return try JSONDecoder().decode(Client.self, from: response.body)
    }

    // MARK: The browser

    /// Signs in through the login form when the browser (its cookie jar `cookies`, kept between calls) has no
    /// session at the server, and returns the redirect to the client without fetching it, and whether the login
    /// form was shown (single sign-on shows none).
    public func signIn(_ authorizationURL: URL, cookies: URL, user: String = "alice") async throws -> (redirect: URL, askedForCredentials: Bool) {
        let result = try await runAgent(["signin", "--cookies", cookies.path, "--user", user, authorizationURL.absoluteString])
        return (result.url, result.stderr.contains("login form shown"))
    }

    /// Follows an end-session URL in the browser (its cookie jar `cookies`), confirming the logout, and returns
    /// the redirect to the post-logout redirect URI (without fetching it), or the server's logged-out page.
    public func endSession(_ url: URL, cookies: URL) async throws -> URL {
        try await runAgent(["endsession", "--cookies", cookies.path, url.absoluteString]).url
    }

    /// `$BROWSER` for the library: the agent signs in (as `user`) or logs out, whichever URL it is given, and
    /// delivers the final redirect to the application's loopback receiver. The paths must hold no space or `:`.
    public func browserCommand(cookies: URL, user: String = "alice") -> String {
        "\(python) \(agent) --deliver --cookies \(cookies.path) --server \(file) --user \(user)"
    }

    private func runAgent(_ arguments: [String]) async throws -> (url: URL, stderr: String) {
        let result = try await runProcess(URL(fileURLWithPath: python), [agent, "--server", file] + arguments)
        guard result.status == 0 else { throw AgentFailure(message: result.stderr) }
        let line = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let url = URL(string: line) else { throw AgentFailure(message: "the agent printed no URL: \(line) \(result.stderr)") }
        return (url, result.stderr)
    }

    // MARK: Test controls

    /// OP-initiated logout: ends every session of `user` at the server (no browser) and answers each back-channel
    /// logout delivery: the URI, its HTTP status (nil when it failed: refused, or timed out), the error and the time taken.
    public func logOut(user: String) async throws -> [Delivery] {
        let body = "user=" + (user.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? user)
        // More than the server's DELIVERY_TIMEOUT (60 s): it answers after its back-channel deliveries.
        let response = try await DefaultHTTPTransport(timeout: 90).send(
            TransportRequest(
                method: .post, url: logoutEndpoint, headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data(body.utf8)))
        guard response.status == 200 else { throw ServerFailure(message: "logout of \(user): HTTP \(response.status)") }
        let answer = try JSONDecoder().decode(LogoutAnswer.self, from: response.body)
        return answer.deliveries
    }

    /// What the server has done so far: back-channel deliveries, sign-ins, logouts.
    public func stats() async throws -> Stats {
        let response = try await DefaultHTTPTransport(timeout: 10).send(TransportRequest(method: .get, url: statsURL))
        return try JSONDecoder().decode(Stats.self, from: response.body)
    }

    public struct Stats: Decodable, Sendable {
        /// Every back-channel logout request the server made, oldest first.
        public let backchannel: [Delivery]
        public let signIns: SignIns
        public let logouts: Logouts
        /// Every front-channel logout URI the server put in a logout page.
        public let frontchannel: [FrontChannel]
        public let loginsRefused: Int

        public struct SignIns: Decodable, Sendable {
            public let total: Int
            public let withCredentials: Int
            public let singleSignOn: Int
            public let byClient: [String: Int]

            enum CodingKeys: String, CodingKey {
                case total, withCredentials = "with_credentials", singleSignOn = "single_sign_on", byClient = "by_client"
            }
        }

        public struct Logouts: Decodable, Sendable {
            public let rpInitiated: Int
            public let opInitiated: Int

            enum CodingKeys: String, CodingKey { case rpInitiated = "rp_initiated", opInitiated = "op_initiated" }
        }

        public struct FrontChannel: Decodable, Sendable {
            public let clientID: String
            public let uri: String
            public let trigger: String

            enum CodingKeys: String, CodingKey { case clientID = "client_id", uri, trigger }
        }

        enum CodingKeys: String, CodingKey {
            case backchannel, signIns = "sign_ins", logouts, frontchannel, loginsRefused = "logins_refused"
        }

        /// The deliveries to one back-channel logout URI.
        public func deliveries(to uri: URL) -> [Delivery] { backchannel.filter { $0.uri == uri.absoluteString } }
    }

    /// One back-channel logout request: where, what it answered (nil and `error` when it failed), the logout
    /// token's `sid` and `jti`, and what set it off (`rp_initiated`, `op_initiated`).
    public struct Delivery: Decodable, Sendable {
        public let clientID: String
        public let uri: String
        public let status: Int?
        public let error: String?
        public let sid: String?
        public let jti: String?
        public let trigger: String
        /// How long the request took, in seconds; nil when it outlasted the server's timeout.
        public let seconds: Double?

        enum CodingKeys: String, CodingKey { case clientID = "client_id", uri, status, error, sid, jti, trigger, seconds }
    }

    struct LogoutAnswer: Decodable {
        let deliveries: [Delivery]
    }

    // MARK: Descriptor

    /// A provider descriptor for this server: OpenID discovery of its issuer (which lists `end_session_endpoint`
    /// and the back- and front-channel logout support), PKCE, `iss` in every authorization answer (RFC 9207), and
    /// loopback redirects on `/callback`; `extra` (a `logout:` section, say) is appended as written. Refresh
    /// tokens come with every code, without `offline_access`.
    public func descriptorYAML(id: String = "logout", extra: String = "") -> String {
        descriptor(id: id, extra: extra).yaml
    }

    public func descriptor(id: String = "logout", extra: String = "") -> TestDescriptor {
        TestDescriptor(
            id: id, displayName: "Logout test server (idpyoidc)", protocol: .oidc, issuer: issuer.absoluteString, endpoints: [],
            scopes: ["openid", "profile", "email"],
            extra: """
                discovery:
                  mode: oidc
                client_auth:
                  methods: [none, client_secret_basic]
                security:
                  pkce: required
                  state: true
                  nonce: true
                  iss_parameter: required
                redirect:
                  loopback:
                    host: 127.0.0.1
                    port: ephemeral
                    path: /callback

                """ + extra)
    }

    public struct AgentFailure: Error, CustomStringConvertible {
        public let message: String
        public var description: String { "the logout server's scripted browser failed: \(message)" }
    }

    public struct ServerFailure: Error, CustomStringConvertible {
        public let message: String
        public var description: String { "the logout server: \(message)" }
    }
}
