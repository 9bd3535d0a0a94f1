import Foundation
import Testing
import OAuthFlowTestSupport
import OAuthFlow
import Logging

/// Docs/services.md's examples: every Swift line compiled here (DocExampleTests checks that each one
/// appears in this file), the same calls run against the service-token servers when they are up, and
/// every clients file the page shows resolved as `oauthflow` resolves it, down to the method it picks.
@Suite struct ServicesDocExamples {
    static let page = "Docs/services.md"

    // MARK: - The Swift blocks, as the page shows them (compiled; the tests below run the same calls)

    /// "A first token": the client `oauthflow` would use, through the front door.
    func firstToken() async throws {
        let oauth = OAuth(.commandLine(environment: ProcessInfo.processInfo.environment))
        let token = try await oauth.serviceTokens(for: "keycloak").accessToken(OAuthClient.ServiceTokenRequest(scopes: ["read"]))
        _ = token
    }

    /// "A first token": a client the service names itself.
    func namedClient(secret: Secret) throws -> ServiceTokens {
        let worker = OAuth(OAuth.Configuration(
            clients: ["keycloak": ClientSettings(clientID: "orders-worker", secret: secret, variables: ["host": "sso.example.com", "realm": "ops"])],
            store: FileTokenStore(directory: URL(fileURLWithPath: "/var/lib/orders-worker/tokens"))))
        let tokens = try worker.serviceTokens(for: "keycloak")   // one cache per provider, shared by every caller of `worker`
        return tokens
    }

    /// "A first token": the types underneath.
    func configuredUnderneath(store: any TokenStore) throws -> ServiceTokens {
        var resolver = ClientSettingsResolver(environment: ProcessInfo.processInfo.environment)
        resolver.overrides["keycloak"] = ClientSettings.Overrides(variables: ["realm": "ops"])
        let configured = try OAuth(OAuth.Configuration(clientSettings: resolver, store: store)).serviceTokens(for: "keycloak")
        return configured
    }

    /// "A first token": every setting in the host's hands.
    func clientByHand() throws -> ServiceTokens {
        let provider = try ProviderRegistry.load().descriptor(named: "keycloak").resolve(["host": "sso.example.com", "realm": "ops"])
        let secret = Secret(try String(contentsOfFile: "/run/secrets/orders-worker", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines))
        let client = OAuthClient(provider: provider, configuration: .service(clientID: "orders-worker", clientSecret: secret))
        let tokens = ServiceTokens(client: client, store: FileTokenStore(directory: URL(fileURLWithPath: "/var/lib/orders-worker/tokens")))
        return tokens
    }

    /// "Client credentials".
    func clientCredentials(tokens: ServiceTokens) async throws {
        let request = OAuthClient.ServiceTokenRequest(scopes: ["read"], resources: ["https://api.example.com/orders"])
        let token = try await tokens.accessToken(request)   // cached; renewed before it expires
        let response = try await tokens.send(TransportRequest(method: .get, url: URL(string: "https://api.example.com/orders/42")!), for: request)
        _ = (token, response)
    }

    /// "JWT bearer": the library signs the assertions.
    func jwtBearerSigned(tokens: ServiceTokens) async throws {
        let signer = try ClientConfiguration.SigningKey(pem: String(contentsOfFile: "/run/secrets/ci-issuer.pem", encoding: .utf8), keyID: "ci-2026")
        let token = try await tokens.accessToken(subject: "deployer", issuer: "https://ci.example.com", key: signer, scopes: ["read"])
        _ = token
    }

    /// "JWT bearer": an assertion someone else signed.
    func jwtBearer(tokens: ServiceTokens) async throws {
        let user = "system:serviceaccount:ci:deployer"
        let token = try await tokens.accessToken(subject: user, scopes: ["read"]) {
            Secret(try String(contentsOfFile: "/var/run/secrets/tokens/oauthflow", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        _ = token
    }

    /// "Token exchange".
    func tokenExchange(oauth: OAuth, tokens: ServiceTokens, incoming: Secret) async throws {
        // incoming: the Secret your API received as its Bearer token
        let exchange = OAuthClient.TokenExchangeRequest(subjectToken: incoming, target: OAuthClient.ServiceTokenRequest(audiences: ["orders-api"]))
        let downstream = try await tokens.exchangedToken(exchange)
        // A Bearer token: send it yourself, through the configuration's transport (no 401 renewal for an exchanged token).
        let request = TransportRequest(method: .post, url: URL(string: "https://orders.example.com/orders")!,
                                       headers: ["Authorization": "Bearer \(downstream.value)", "Content-Type": "application/json"], body: Data("{}".utf8))
        let answer = try await oauth.environment.transport.send(request)
        _ = answer
    }

    /// "How the client authenticates": one configuration per method.
    func configurations(secret: Secret, certificatePEM: String, keyPEM: String, internalCA: String) throws -> [ClientConfiguration] {
        let basicOrPost = ClientConfiguration.service(clientID: "orders-worker", clientSecret: secret)
        let post = ClientConfiguration.service(clientID: "orders-worker", clientSecret: secret, authMethod: .clientSecretPost)
        let secretJWT = ClientConfiguration.service(clientID: "orders-worker", clientSecret: secret, authMethod: .clientSecretJWT)
        let pem = try ClientConfiguration.SigningKey(pem: String(contentsOfFile: "/run/secrets/orders-worker.pem", encoding: .utf8), keyID: "2026-01")
        let jwk = try ClientConfiguration.SigningKey(jwk: String(contentsOfFile: "/run/secrets/orders-worker.jwk", encoding: .utf8))
        let keyed = ClientConfiguration.service(clientID: "orders-worker", signingKey: pem)
        let entra = try ClientConfiguration.SigningKey(pem: keyPEM, algorithm: .ps256, certificatePEM: certificatePEM)
        let identity = TLSClientIdentity(certificateChainPEM: certificatePEM, privateKeyPEM: Secret(keyPEM), trustRootsPEM: internalCA)
        let mutual = ClientConfiguration.service(clientID: "orders-worker", authMethod: .tlsClientAuth, tlsIdentity: identity)
        _ = (jwk, entra)
        return [basicOrPost, post, secretJWT, keyed, mutual]
    }

    /// "The cache".
    func cacheSettings(client: OAuthClient, store: any TokenStore) -> ServiceTokens {
        let shared = ServiceTokens(client: client, store: store, skew: 120, defaultLifetime: 600)
        return shared
    }

    /// "The cache": seeing it at work.
    func watchedCache(clients: [String: ClientSettings], store: any TokenStore) -> OAuth {
        var logger = Logger(label: "orders-worker.tokens")
        logger.logLevel = .debug   // cache hits are debug lines
        let watched = OAuth(OAuth.Configuration(clients: clients, store: store, environment: OAuthEnvironment(logger: logger)))
        return watched
    }

    /// The lines the page says a cache hit logs are the ones logged, with the metadata it names and no token.
    @Test func theCacheHitLinesThePageNamesAreLogged() async throws {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent(Self.page), encoding: .utf8)
        let memory = "service token cache hit", stored = "service token cache hit in the store"
        #expect(text.contains("`\(memory)`") && text.contains("`\(stored)`"), "\(Self.page) no longer names the cache hit lines")
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let provider = try TestDescriptor(
            id: "keycloak", extra: "grant_types: [client_credentials]\nclient_auth:\n  methods: [client_secret_basic]\n").provider()
        let transport = ScriptedTransport { _, count in
            TransportResponse(status: 200, headers: ["Content-Type": "application/json"],
                         body: Data(#"{"access_token":"service-token-\#(count)","token_type":"Bearer","expires_in":3600}"#.utf8))
        }
        let handler = CapturingLogHandler()
        var logger = Logger(label: "orders-worker.tokens", factory: { _ in handler })
        logger.logLevel = .debug
        let client = OAuthClient(
            provider: provider, configuration: .service(clientID: "orders-worker", clientSecret: Secret("s3cret-value")),
            environment: OAuthEnvironment(transport: transport, logger: logger))
        let store = FileTokenStore(directory: directory.url.appendingPathComponent("oauthflow"))
        let request = OAuthClient.ServiceTokenRequest(scopes: ["read"])
        let token = try await ServiceTokens(client: client, store: store).accessToken(request)
        let other = ServiceTokens(client: client, store: store)
        #expect(try await other.accessToken(request) == token)
        #expect(try await other.accessToken(request) == token)
        let hits = handler.messages.filter { $0.hasPrefix(memory) }
        #expect(hits == ["\(stored) provider=keycloak scopes=read", "\(memory) provider=keycloak scopes=read"], "\(handler.messages)")
        #expect(transport.count("/token") == 1)
        #expect(!handler.messages.joined().contains(token.value) && !handler.messages.joined().contains("s3cret-value"))
    }

    /// "Try it locally": a descriptor in the user's directory, which the registry reads only when told.
    func tryItLocally() async throws {
        let mine = OAuth(.commandLine(environment: ProcessInfo.processInfo.environment))   // ~/.config/oauthflow: providers/ and clients.yaml
        let authlib = try mine.serviceTokens(for: "authlib-test")
        let whoami = try await authlib.send(TransportRequest(method: .get, url: URL(string: "http://127.0.0.1:44827/api/whoami")!), for: OAuthClient.ServiceTokenRequest(scopes: ["read"]))
        print(whoami.status, String(decoding: whoami.body, as: UTF8.self))   // 200 {"audience":[],"client_id":"svc-rsa",...}
    }

    /// Calls the page shows inside its prose, compiled in `configurations` above and `inlineExamples` below.
    static let inlineCalls = [
        "ClientConfiguration.SigningKey(pem: keyPEM, algorithm: .ps256, certificatePEM: certificatePEM)",
        "ProviderRegistry.load(includeUserDirectory: true, environment: ProcessInfo.processInfo.environment)",
        "ProviderRegistry.load(directories: [URL(fileURLWithPath: \"/etc/myapp/providers\")])",
        "ClientSettings.Overrides(variables: [\"realm\": \"ops\"])",
    ]

    func inlineExamples(token: Secret, response: TransportResponse) throws {
        _ = try ProviderRegistry.load(includeUserDirectory: true, environment: ProcessInfo.processInfo.environment)
        _ = try ProviderRegistry.load(directories: [URL(fileURLWithPath: "/etc/myapp/providers")])
        _ = ClientSettings.Overrides(variables: ["realm": "ops"])
        let text: String = token.value
        let status: Int = response.status
        let headers: [String: String] = response.headers
        let body: Data = response.body
        _ = (text, status, headers, body, response.header("WWW-Authenticate"))
    }

    @Test func inlineCallsAreShown() throws {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent(Self.page), encoding: .utf8)
        for call in Self.inlineCalls {
            #expect(text.contains("`\(call)`"), "\(Self.page) no longer shows `\(call)`")
        }
    }

    // MARK: - The same calls against Authlib and idpyoidc

    @Test(.enabled(if: TestServiceServer.shouldRun, TestServiceServer.skipReason))
    func clientCredentialsExamplesRunAgainstTheServiceServer() async throws {
        let server = try TestServiceServer.require()
        let state = try TemporaryDirectory()
        defer { state.cleanUp() }
        let registered = try server.client("post")
        let provider = try server.descriptor(methods: ["none", "client_secret_post", "client_secret_basic"]).provider()
        let secret = Secret(try #require(registered.clientSecret))
        let client = OAuthClient(provider: provider, configuration: .service(clientID: registered.clientID, clientSecret: secret))
        let tokens = ServiceTokens(client: client, store: FileTokenStore(directory: state.url.appendingPathComponent("oauthflow")))
        #expect(try client.configuration.authenticationMethod(for: provider) == .clientSecretPost, "a secret picks the first secret method listed")

        let request = OAuthClient.ServiceTokenRequest(scopes: ["read"], resources: ["https://api.example.com/orders"])
        let token = try await tokens.accessToken(request)   // cached; renewed before it expires
        let response = try await tokens.send(TransportRequest(method: .get, url: server.resource), for: request)
        #expect(response.status == 200)
        let whoami = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        #expect(whoami["resource"] as? [String] == ["https://api.example.com/orders"])
        #expect(try await tokens.accessToken(OAuthClient.ServiceTokenRequest(scopes: ["read", "read"], resources: ["https://api.example.com/orders"])) == token,
                "order and repeats do not matter")

        // A second ServiceTokens on the same directory (another process, as far as the store can tell) reuses the
        // token: the server issues a new random token for every request.
        let other = ServiceTokens(client: client, store: FileTokenStore(directory: state.url.appendingPathComponent("oauthflow")))
        #expect(try await other.accessToken(request) == token)
        let directory = state.url.appendingPathComponent("oauthflow")
        let stored = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }
        #expect(!stored.isEmpty && stored.allSatisfy { $0.hasPrefix("service--service-") }, "\(stored)")
        for file in stored {
            #expect(!(try String(contentsOfFile: directory.appendingPathComponent(file).path, encoding: .utf8)).contains(secret.value))
        }

        // The audience a `resource` provider cannot take is refused before anything is sent.
        let error = await #expect(throws: FlowError.self) { _ = try await tokens.accessToken(OAuthClient.ServiceTokenRequest(audiences: ["orders-api"])) }
        #expect(error?.code == .invalidServiceRequest)
    }

    @Test(.enabled(if: TestServiceServer.shouldRun, TestServiceServer.skipReason))
    func jwtBearerExampleRunsAgainstTheServiceServer() async throws {
        let server = try TestServiceServer.require()
        let grant = server.jwtBearer
        let registered = try server.client(grant.client)
        // The descriptor's default assertion_audience (the issuer), which the server takes for grant assertions too.
        let provider = try server.descriptor(grants: ["urn:ietf:params:oauth:grant-type:jwt-bearer"], methods: [registered.authMethod]).provider()
        let tokens = ServiceTokens(client: OAuthClient(provider: provider, configuration: try registered.configuration()))
        let user = try #require(grant.users.first)
        let signer = try ClientConfiguration.SigningKey(pem: String(contentsOfFile: grant.privateKeyPEM, encoding: .utf8), keyID: grant.kid)
        let token = try await tokens.accessToken(subject: user, issuer: grant.issuer, key: signer, scopes: ["read"])
        let (status, whoami) = try await server.whoami(token)
        #expect(status == 200)
        #expect(whoami["sub"] as? String == user)
        #expect(try await tokens.accessToken(subject: user, issuer: grant.issuer, key: signer, scopes: ["read"]) == token, "cached per subject")
    }

    @Test(.enabled(if: TestExchangeServer.shouldRun, TestExchangeServer.skipReason))
    func tokenExchangeExampleRunsAgainstTheExchangeServer() async throws {
        let server = try TestExchangeServer.require()
        let registered = try server.client("basic")
        let client = OAuthClient(
            provider: try server.descriptor(methods: [registered.authMethod]).provider(), configuration: try registered.configuration())
        let tokens = ServiceTokens(client: client)
        let incoming = try await server.subjectToken()
        let audience = try #require(server.audiences.first)
        let exchange = OAuthClient.TokenExchangeRequest(subjectToken: incoming, target: OAuthClient.ServiceTokenRequest(audiences: [audience]))
        let downstream = try await tokens.exchangedToken(exchange)
        #expect(downstream != incoming)
        #expect(try await tokens.exchangedToken(exchange) == downstream, "cached per subject token")
    }

    // MARK: - "Try it locally", as the page shows it

    /// The page's YAML block that starts with `first` and holds `line`, as text.
    static func pageYAML(first: String, holding line: String) throws -> String {
        let block = try #require(
            try DocExampleTests.blocks(in: page).first { $0.language == "yaml" && $0.lines.first == first && $0.lines.contains(line) },
            "\(page) shows no YAML block starting `\(first)` with `\(line)`")
        return block.lines.joined(separator: "\n") + "\n"
    }

    /// The page's `oauthflow` command lines that name `provider`, with their words (lint aside: it runs offline).
    static func pageCommands(naming provider: String) throws -> [(text: String, words: [String])] {
        try DocExampleTests.blocks(in: page).filter { $0.language == "console" }.flatMap { DocExampleTests.commands(of: $0, home: "") }
            .filter { $0.words.first == "oauthflow" && $0.words.contains(provider) }
    }

    @Test(.enabled(if: TestServiceServer.shouldRun, TestServiceServer.skipReason))
    func tryItLocallyRunsAgainstTheServiceServer() async throws {
        let server = try TestServiceServer.require()
        let rsa = try server.client("rsa")
        let shownIssuer = try Self.pageIssuer(of: "authlib-test")
        #expect(server.resource.absoluteString == server.issuer + "/api/whoami", "the page calls ISSUER/api/whoami")
        let home = try TemporaryDirectory()
        defer { home.cleanUp() }
        let descriptor = try Self.pageYAML(first: "# ~/.config/oauthflow/providers/authlib-test.yaml", holding: "id: authlib-test")
        _ = try home.write("config/oauthflow/providers/authlib-test.yaml", descriptor.replacingOccurrences(of: shownIssuer, with: server.issuer))
        // The page's clients file, with this server's key file.
        let clients = try Self.pageYAML(first: "# ~/.config/oauthflow/clients.yaml", holding: "authlib-test:")
        let entry = try #require(try ClientsFile(text: clients, url: home.url).entry(for: "authlib-test"))
        #expect(entry.clientID == rsa.clientID, "the page's client is the server's rsa client")
        let shownKey = try #require(entry.privateKeyFile)
        _ = try home.write("config/oauthflow/clients.yaml", clients.replacingOccurrences(of: shownKey, with: try #require(rsa.privateKeyPEM)))
        let environment = [
            "HOME": home.url.path, "XDG_CONFIG_HOME": home.url.appendingPathComponent("config").path,
            "XDG_STATE_HOME": home.url.appendingPathComponent("state").path,
        ]

        let commands = try Self.pageCommands(naming: "authlib-test")
        #expect(commands.count == 2, "\(commands.map(\.text))")
        for command in commands {
            let arguments = command.words.dropFirst().map { $0.replacingOccurrences(of: shownIssuer, with: server.issuer) }
            let result = try await runProduct("oauthflow", arguments, environment: environment)
            #expect(result.status == 0, "`\(command.text)`: \(result.stderr)")
            if arguments.contains("--service") {
                #expect(result.stdout.contains("\"client_id\":\"\(rsa.clientID)\""), "`\(command.text)`: \(result.stdout)")
            } else {
                #expect(!result.stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "`\(command.text)` printed no token")
            }
        }

        // The Swift, with this test's environment in place of the process's.
        let mine = OAuth(.commandLine(environment: environment))
        let authlib = try mine.serviceTokens(for: "authlib-test")
        let whoami = try await authlib.send(TransportRequest(method: .get, url: server.resource), for: OAuthClient.ServiceTokenRequest(scopes: ["read"]))
        #expect(whoami.status == 200)
        #expect(String(decoding: whoami.body, as: UTF8.self).contains("\"client_id\":\"\(rsa.clientID)\""))
        #expect(!(try ProviderRegistry.load(environment: environment).ids.contains("authlib-test")), "load() alone reads no user directory")
        #expect(throws: ProviderError.self, "a configuration reads no user directory unless asked") {
            var configuration = OAuth.Configuration()
            configuration.environmentVariables = environment
            _ = try OAuth(configuration).descriptor("authlib-test")
        }
    }

    @Test(.enabled(if: TestExchangeServer.shouldRun, TestExchangeServer.skipReason))
    func tryItLocallyExchangesAgainstTheExchangeServer() async throws {
        let server = try TestExchangeServer.require()
        let basic = try server.client("basic")
        let shownIssuer = try Self.pageIssuer(of: "idpyoidc-test")
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent(Self.page), encoding: .utf8)
        #expect(server.subjectTokenEndpoint.absoluteString == server.issuer + "/test/subject-token")
        #expect(text.contains("`curl -X POST \(shownIssuer)/test/subject-token -d user=alice`"))
        let home = try TemporaryDirectory()
        defer { home.cleanUp() }
        let descriptor = try Self.pageYAML(first: "# ~/.config/oauthflow/providers/idpyoidc-test.yaml", holding: "id: idpyoidc-test")
        _ = try home.write("config/oauthflow/providers/idpyoidc-test.yaml", descriptor.replacingOccurrences(of: shownIssuer, with: server.issuer))
        let subject = try home.write("alice.token", try await server.subjectToken(user: "alice").value + "\n")
        var environment = [
            "HOME": home.url.path, "XDG_CONFIG_HOME": home.url.appendingPathComponent("config").path,
            "XDG_STATE_HOME": home.url.appendingPathComponent("state").path,
        ]

        let commands = try Self.pageCommands(naming: "idpyoidc-test")
        #expect(commands.count == 1, "\(commands.map(\.text))")
        for command in commands {
            var arguments = Array(command.words.dropFirst())
            let value = { (flag: String) in arguments.firstIndex(of: flag).map { arguments[$0 + 1] } }
            #expect(value("--client-id") == basic.clientID, "the page's client is the server's basic client")
            #expect(value("--audience").map(server.audiences.contains) == true, "the page's audience is one the server takes")
            let variable = try #require(value("--client-secret-env"))
            #expect(text.contains("$ export \(variable)="), "the page exports \(variable)")
            environment[variable] = try #require(basic.clientSecret) as String
            arguments = arguments.map { $0 == "alice.token" ? subject.path : $0 }
            let result = try await runProduct("oauthflow", arguments, environment: environment)
            #expect(result.status == 0, "`\(command.text)`: \(result.stderr)")
            #expect(result.stdout.hasPrefix("eyJ"), "`\(command.text)` printed no JWT: \(result.stdout)")
        }
    }

    // MARK: - The clients files the page shows

    /// The YAML blocks of the documents (cli.md aside: CLI tests check its own) that start with the clients file's path.
    static func clientsFiles() throws -> [(place: String, text: String)] {
        // Docs/pushed-and-dpop.md's FAPI 2.0 bank entry is for its own descriptor: PushedAndDPoPDocExamples reads it.
        try DocExampleTests.documents.filter { $0 != "Docs/cli.md" && $0 != "Docs/pushed-and-dpop.md" }.flatMap { file in
            try DocExampleTests.blocks(in: file).filter { $0.language == "yaml" && $0.lines.first == "# ~/.config/oauthflow/clients.yaml" }
                .map { ("\(file):\($0.line)", $0.lines.joined(separator: "\n")) }
        }
    }

    /// What the page says each entry picks, in the order the page shows them.
    static let expectedMethods: [(provider: String, method: ProviderDescriptor.ClientAuthMethod)] = [
        ("keycloak", .clientSecretBasic),
        ("okta", .clientSecretBasic),
        ("keycloak", .clientSecretJWT),
        ("auth0", .privateKeyJWT), ("cloudentity", .privateKeyJWT), ("microsoft", .privateKeyJWT),
        ("keycloak", .tlsClientAuth),
        ("authlib-test", .privateKeyJWT),
    ]

    /// The descriptors the page shows in full ("Try it locally"), by id; `issuers` replaces the issuer the page
    /// shows with a running server's.
    static func pageDescriptors(issuers: [String: String] = [:]) throws -> [String: ProviderDescriptor] {
        var found: [String: ProviderDescriptor] = [:]
        for block in try DocExampleTests.blocks(in: page) where block.language == "yaml" && block.lines.contains(where: { $0.hasPrefix("schema_version:") }) {
            let id = try #require(block.lines.first { $0.hasPrefix("id: ") }).dropFirst(4).trimmingCharacters(in: .whitespaces)
            let lines = block.lines.map { line in issuers[id].map { line.hasPrefix("issuer: ") ? "issuer: \($0)" : line } ?? line }
            let document = DescriptorDocument.parse(Data(lines.joined(separator: "\n").utf8), path: "\(page):\(block.line)")
            found[id] = try #require(document.descriptor, "\(page):\(block.line): \(document.problems)") as ProviderDescriptor
        }
        return found
    }

    /// The issuer a descriptor of the page shows.
    static func pageIssuer(of id: String) throws -> String {
        try #require(try pageDescriptors()[id].flatMap(\.issuer), "\(page) shows no descriptor \(id)")
    }

    /// A bundled descriptor, or one the page shows in full.
    static func descriptor(named name: String, registry: ProviderRegistry, issuers: [String: String] = [:]) throws -> ProviderDescriptor {
        if let shown = try pageDescriptors(issuers: issuers)[name] { return shown }
        return try registry.descriptor(named: name)
    }

    /// Every entry is a bundled provider's, with keys the clients file knows and variables the provider takes.
    @Test func clientsFileExamplesParse() throws {
        let registry = try ProviderRegistry.load()
        var entries: [String] = []
        for (place, text) in try Self.clientsFiles() {
            let file = ClientsFile(text: text, url: URL(fileURLWithPath: "/doc/\(place)"))
            for provider in Self.providers(in: text) {
                let entry = try #require(try file.entry(for: provider), "\(place): no entry for \(provider)")
                _ = try Self.descriptor(named: provider, registry: registry).resolve(entry.variables ?? [:])
                entries.append(provider)
            }
        }
        #expect(entries == Self.expectedMethods.map(\.provider), "a clients file was added to or taken from \(Self.page): update expectedMethods")
    }

    /// Each entry, its files and variables replaced by the service server's clients' (same keys, same shape),
    /// resolves to the method the page says, and that method gets a token from the server.
    @Test(.enabled(if: TestServiceServer.shouldRun, TestServiceServer.skipReason))
    func clientsFileExamplesPickTheirMethodAndGetAToken() async throws {
        let server = try TestServiceServer.require()
        let registry = try ProviderRegistry.load()
        let home = try TemporaryDirectory()
        defer { home.cleanUp() }
        var index = 0
        for (place, text) in try Self.clientsFiles() {
            let file = ClientsFile(text: text, url: URL(fileURLWithPath: "/doc/\(place)"))
            for provider in Self.providers(in: text) {
                defer { index += 1 }
                let expected = try #require(Self.expectedMethods.dropFirst(index).first)
                let entry = try #require(try file.entry(for: provider))
                let registered = try server.client(Self.serverClient(for: expected.method, algorithm: entry.signingAlg))
                var environment: [String: String] = [:]
                var yaml = "\(provider):\n  client_id: \(registered.clientID)\n"
                if let variable = entry.clientSecretEnvironment {
                    let secret: String = try #require(registered.clientSecret)
                    environment[variable] = secret
                    yaml += "  client_secret_env: \(variable)\n"
                }
                if entry.clientSecretFile != nil {
                    yaml += "  client_secret_file: \(try home.write("\(index).secret", try #require(registered.clientSecret) + "\n").path)\n"
                }
                if let method = entry.clientAuth { yaml += "  client_auth: \(method.rawValue)\n" }
                let keyPath = expected.method.usesCertificate ? registered.certificateKeyPEM : registered.privateKeyPEM
                if entry.privateKeyFile != nil { yaml += "  private_key_file: \(try #require(keyPath))\n" }
                if let variable = entry.privateKeyEnvironment {
                    environment[variable] = try String(contentsOfFile: try #require(registered.privateKeyJWK), encoding: .utf8)
                    yaml += "  private_key_env: \(variable)\n"
                }
                if entry.keyID != nil, let kid = registered.kid { yaml += "  key_id: \(kid)\n" }
                if let alg = entry.signingAlg { yaml += "  signing_alg: \(alg)\n" }
                if entry.certificateFile != nil {
                    // Entra ID's entry sends its certificate's thumbprint with the key: any certificate will do here.
                    let certificate = try registered.certificatePEM ?? server.client("tls").certificatePEM
                    yaml += "  certificate_file: \(try #require(certificate))\n"
                }
                if entry.caFile != nil { yaml += "  ca_file: \(server.caCertificate)\n" }
                let clientsFile = try home.write("\(index).yaml", yaml)
                let settings = try ClientSettingsResolver(environment: environment, clientsFile: clientsFile).settings(for: provider)
                let configuration = settings.serviceConfiguration()

                // The bundled descriptor (or the page's own, at this server), as the page's entry resolves it, picks the
                // method the page says.
                let shown = try Self.pageDescriptors()[provider] != nil
                let bundled = try Self.descriptor(named: provider, registry: registry, issuers: [provider: server.issuer]).resolve(entry.variables ?? [:])
                #expect(try configuration.authenticationMethod(for: bundled) == expected.method, "\(place): \(provider)")
                if shown {
                    // The page's descriptor is for this server: it gets a token as it is.
                    let token = try await OAuthClient(provider: bundled, configuration: configuration).clientCredentialsToken().accessToken
                    #expect(try await server.whoami(token).status == 200, "\(place): \(provider)")
                }

                // The same methods, in the same order, at the test server: a token for that client.
                let methods = bundled.policy.clientAuthMethods.map(\.rawValue)
                let local = try server.descriptor(methods: methods, audience: registered.assertionAudience).provider()
                #expect(try configuration.authenticationMethod(for: local) == expected.method)
                let tokens = try await OAuthClient(provider: local, configuration: configuration, environment: OAuthEnvironment(transport: DefaultHTTPTransport(timeout: 15)))
                    .clientCredentialsToken()
                let (status, whoami) = try await server.whoami(tokens.accessToken)
                #expect(status == 200, "\(place): \(provider)")
                #expect(whoami["client_id"] as? String == registered.clientID)
            }
        }
        #expect(index == Self.expectedMethods.count)
    }

    /// The top-level keys of a clients file's text, in order.
    static func providers(in text: String) -> [String] {
        text.components(separatedBy: "\n").filter { !$0.hasPrefix(" ") && !$0.hasPrefix("#") && $0.hasSuffix(":") }.map { String($0.dropLast()) }
    }

    /// The service server's client that authenticates with `method` (and signs with `algorithm`).
    static func serverClient(for method: ProviderDescriptor.ClientAuthMethod, algorithm: String?) -> String {
        switch method {
        case .clientSecretBasic: return "basic"
        case .clientSecretPost: return "post"
        case .clientSecretJWT: return "secret-jwt"
        case .privateKeyJWT: return algorithm == "PS256" ? "ps256" : algorithm == "ES256" ? "es256" : "rsa"
        case .tlsClientAuth: return "tls"
        case .selfSignedTLSClientAuth: return "self-signed-tls"
        case .none: return "basic"
        }
    }
}
