import Foundation
import OAuthFlow
import OAuthFlowTestSupport
import OAuthFlowTesting
import Testing

/// Where a client's settings come from: what the host names, then the environment, then the clients file;
/// a configured secret only for the client id beside it; every refusal a sentence that names no CLI flag.
@Suite struct ClientSettingsResolverTests {
    /// A config directory holding `clients.yaml` with `text` (none when nil), and the environment pointing at it.
    struct Setup {
        let directory: TemporaryDirectory
        let environment: [String: String]

        init(_ text: String?, environment extra: [String: String] = [:]) throws {
            directory = try TemporaryDirectory()
            if let text { _ = try directory.write("oauthflow/clients.yaml", text) }
            environment = ["XDG_CONFIG_HOME": directory.url.path, "HOME": directory.url.path].merging(extra) { _, new in new }
        }

        var resolver: ClientSettingsResolver { ClientSettingsResolver(environment: environment) }
        var file: String { directory.url.appendingPathComponent("oauthflow/clients.yaml").path }
    }

    @Test func theHostThenTheEnvironmentThenTheFileNameTheClient() throws {
        let file = "django:\n  client_id: from-file\n  variables:\n    port: '8000'\n    realm: file\n  scopes: [openid, email]\n"
        let onlyFile = try Setup(file)
        defer { onlyFile.directory.cleanUp() }
        let settings = try onlyFile.resolver.settings(for: "django")
        #expect(settings.clientID == "from-file" && settings.variables == ["port": "8000", "realm": "file"])
        #expect(settings.scopes == ["openid", "email"] && settings.secret == nil && settings.secretSource == nil)

        let environment = try Setup(file, environment: ["OAUTHFLOW_DJANGO_CLIENT_ID": "from-environment"])
        defer { environment.directory.cleanUp() }
        #expect(try environment.resolver.settings(for: "django").clientID == "from-environment")

        let given = try environment.resolver.settings(
            for: "django", overrides: .init(clientID: "given", variables: ["realm": "given"], scopes: ["read"]))
        #expect(given.clientID == "given" && given.variables == ["port": "8000", "realm": "given"] && given.scopes == ["read"])
        // No scopes given keeps the file's.
        #expect(try environment.resolver.settings(for: "django", overrides: .init(scopes: [])).scopes == ["openid", "email"])
    }

    /// A credential goes to the server its entry's variables name: a variable given another value (another tenant's
    /// `domain`, from the command line or a call) leaves the entry's secret out, with a note, while the entry names no
    /// `issuer`; a public client, a variable the entry leaves out, the same value, an entry that names its server, or a
    /// secret named with the overrides themselves keep theirs.
    @Test func aVariableThatMovesTheCredentialsElsewhereLeavesThemOut() throws {
        let entry = "okta:\n  client_id: app\n  client_secret_env: OKTA_SECRET\n  client_auth: client_secret_post\n  variables:\n    domain: a.okta.com\n"
        let setup = try Setup(entry, environment: ["OKTA_SECRET": "s3cret-value", "OTHER_SECRET": "other-value"])
        defer { setup.directory.cleanUp() }
        let moved = try setup.resolver.settings(for: "okta", overrides: .init(variables: ["domain": "evil.example"]))
        #expect(moved.secret == nil && moved.secretSource == nil && moved.authMethod == nil)
        #expect(moved.variables == ["domain": "evil.example"])
        let note = try #require(moved.notes.last)
        #expect(note.contains("`domain` set to `a.okta.com`, not `evil.example`") && !note.contains("s3cret-value"), "\(note)")
        let kept = try setup.resolver.settings(for: "okta", overrides: .init(variables: ["domain": "a.okta.com", "region": "eu"]))
        #expect(kept.variables == ["domain": "a.okta.com", "region": "eu"] && kept.secret?.value == "s3cret-value")
        // A secret the command line names comes with the command line's variables.
        let named = try setup.resolver.settings(
            for: "okta", overrides: .init(clientID: "other", secretVariable: "OTHER_SECRET", variables: ["domain": "b.okta.com"]))
        #expect(named.secret?.value == "other-value" && named.variables["domain"] == "b.okta.com")

        let bound = try Setup(entry + "  issuer: https://a.okta.com\n", environment: ["OKTA_SECRET": "s3cret-value"])
        defer { bound.directory.cleanUp() }
        let elsewhere = try bound.resolver.settings(for: "okta", overrides: .init(variables: ["domain": "evil.example"]))
        #expect(elsewhere.secret?.value == "s3cret-value", "the client compares the issuer itself")
        #expect(elsewhere.authorizationServer?.absoluteString == "https://a.okta.com")

        let open = try Setup("okta:\n  client_id: app\n  variables:\n    domain: a.okta.com\n")
        defer { open.directory.cleanUp() }
        #expect(try open.resolver.settings(for: "okta", overrides: .init(variables: ["domain": "b.okta.com"])).variables["domain"] == "b.okta.com")

        let given = ClientSettings(clientID: "app", secret: Secret("s3cret-value"), variables: ["domain": "a.okta.com"])
        #expect(given.overriding(variables: ["domain": "b.okta.com"], provider: "okta").secret == nil)
        #expect(given.overriding(variables: ["tenant": "t1"], provider: "okta").secret?.value == "s3cret-value")
    }

    /// The same holds for a stored session or a pending sign-in: one signed in to another tenant than the entry's (its
    /// variables, given back when it is refreshed) gets no secret from the entry, whose secret is the entry's tenant's.
    @Test func aSessionOfAnotherTenantGetsNoneOfTheEntrysCredentials() throws {
        let entry = "okta:\n  client_id: app\n  client_secret_env: OKTA_SECRET\n  client_auth: client_secret_post\n  variables:\n    domain: a.okta.com\n"
        let setup = try Setup(entry, environment: ["OKTA_SECRET": "s3cret-value", "OTHER_SECRET": "other-value"])
        defer { setup.directory.cleanUp() }
        let elsewhere = try setup.resolver.settings(clientID: "app", provider: "okta", overrides: .init(variables: ["domain": "evil.example"]))
        #expect(elsewhere.secret == nil && elsewhere.secretSource == nil && elsewhere.authMethod == nil)
        #expect(elsewhere.variables == ["domain": "evil.example"])
        #expect(elsewhere.notes.last?.contains("`domain` set to `a.okta.com`, not `evil.example`") == true, "\(elsewhere.notes)")
        let home = try setup.resolver.settings(clientID: "app", provider: "okta", overrides: .init(variables: ["domain": "a.okta.com"]))
        #expect(home.secret?.value == "s3cret-value" && home.variables == ["domain": "a.okta.com"])
        // Variables the pending sign-in or session did not have are not added from the entry.
        let unstated = try setup.resolver.settings(clientID: "app", provider: "okta", overrides: .init(variables: ["region": "eu"]))
        #expect(unstated.secret?.value == "s3cret-value" && unstated.variables == ["region": "eu"])
        let named = try setup.resolver.settings(
            clientID: "app", provider: "okta", overrides: .init(clientID: "app", secretVariable: "OTHER_SECRET", variables: ["domain": "b.okta.com"]))
        #expect(named.secret?.value == "other-value" && named.variables == ["domain": "b.okta.com"])
    }

    /// An entry's `issuer` binds its credentials to that authorization server: a provider whose issuer is another (the
    /// descriptor re-pointed at a look-alike server) gets nothing, the one named gets the secret; a value that is not an
    /// issuer is refused with the key named.
    @Test func theEntrysIssuerBindsItsCredentials() async throws {
        let setup = try Setup(
            "corp:\n  client_id: app\n  client_secret_env: CORP_SECRET\n  issuer: https://auth.example.com\n",
            environment: ["CORP_SECRET": "corp-secret-0123456789"])
        defer { setup.directory.cleanUp() }
        let settings = try setup.resolver.settings(for: "corp")
        #expect(settings.authorizationServer?.absoluteString == "https://auth.example.com")
        for issuer in ["https://auth-example.com", "https://auth.example.com"] {
            let recording = RecordingTransport(CannedTransport(body: #"{"access_token":"at","token_type":"Bearer"}"#))
            let provider = try TestDescriptor(
                id: "corp", issuer: issuer, extra: "grant_types: [client_credentials]\nclient_auth:\n  methods: [client_secret_basic]\n"
            ).provider()
            let client = OAuthClient(
                provider: provider, configuration: settings.serviceConfiguration(), environment: OAuthEnvironment(transport: recording))
            let sent = (try? await client.clientCredentialsToken()) != nil
            #expect(sent == (issuer == "https://auth.example.com"), "\(issuer)")
            #expect(recording.requests.count == (sent ? 1 : 0), "\(issuer)")
        }
        let bad = try Setup("corp:\n  client_id: app\n  issuer: http://auth.example.com\n")
        defer { bad.directory.cleanUp() }
        let error = #expect(throws: ClientSettingsError.self) { try bad.resolver.settings(for: "corp") }
        #expect(error?.code == .invalidClientsFile && error?.message.contains("`issuer` under `corp:`") == true)
    }

    @Test func aProviderIDWithADashNamesItsVariablesWithAnUnderscore() throws {
        #expect(ClientSettingsResolver.clientIDVariable(for: "my-idp") == "OAUTHFLOW_MY_IDP_CLIENT_ID")
        #expect(ClientSettingsResolver.clientSecretVariable(for: "my-idp") == "OAUTHFLOW_MY_IDP_CLIENT_SECRET")
        let setup = try Setup(nil, environment: ["OAUTHFLOW_MY_IDP_CLIENT_ID": "c", "OAUTHFLOW_MY_IDP_CLIENT_SECRET": "s"])
        defer { setup.directory.cleanUp() }
        let settings = try setup.resolver.settings(for: "my-idp")
        #expect(settings.clientID == "c" && settings.secret?.value == "s")
        #expect(settings.secretSource == .providerVariable("OAUTHFLOW_MY_IDP_CLIENT_SECRET"))
        #expect(settings.secretSource?.description == "$OAUTHFLOW_MY_IDP_CLIENT_SECRET")
    }

    @Test func noClientIDSaysWhereOneCanGo() throws {
        let setup = try Setup(nil)
        defer { setup.directory.cleanUp() }
        let error = try #require(throws: ClientSettingsError.self) { try setup.resolver.settings(for: "django") }
        #expect(error.code == .missingClientID && error.providerID == "django")
        #expect(error.message == "no client id for django: set OAUTHFLOW_DJANGO_CLIENT_ID, or add `client_id` under `django:` in \(setup.file)")
    }

    @Test func theFilesSecretBelongsToItsClientID() throws {
        let setup = try Setup(
            "django:\n  client_id: confidential\n  client_secret_env: CONFIDENTIAL_SECRET\n  client_auth: client_secret_post\n",
            environment: ["CONFIDENTIAL_SECRET": "s3cret"])
        defer { setup.directory.cleanUp() }
        let own = try setup.resolver.settings(for: "django")
        #expect(own.secret?.value == "s3cret" && own.authMethod == .clientSecretPost && own.notes.isEmpty)
        #expect(own.secretSource == .clientsFileVariable("CONFIDENTIAL_SECRET", provider: "django", clientsFile: setup.file))
        #expect(own.secretSource?.description == "$CONFIDENTIAL_SECRET, named by client_secret_env under `django:` in \(setup.file)")

        let other = try setup.resolver.settings(for: "django", overrides: .init(clientID: "public"))
        #expect(other.secret == nil && other.authMethod == nil && other.secretSource == nil)
        #expect(
            other.notes == ["client_secret_env and client_auth under `django:` in \(setup.file) are for client confidential, not public; not used"])
    }

    /// Another client's key and certificate are named as left out too, not only its secret.
    @Test func anotherClientsKeyIsNamedAsLeftOut() throws {
        let setup = try Setup(
            "django:\n  client_id: signer\n  private_key_file: /nonexistent/key.pem\n  certificate_file: /nonexistent/cert.pem\n  client_auth: private_key_jwt\n"
        )
        defer { setup.directory.cleanUp() }
        let other = try setup.resolver.settings(for: "django", overrides: .init(clientID: "public"))
        #expect(
            other.notes == [
                "private_key_file, certificate_file and client_auth under `django:` in \(setup.file) are for client signer, not public; not used"
            ])
    }

    @Test func theEnvironmentsSecretBelongsToItsClientID() throws {
        let setup = try Setup(nil, environment: ["OAUTHFLOW_DJANGO_CLIENT_ID": "confidential", "OAUTHFLOW_DJANGO_CLIENT_SECRET": "s3cret"])
        defer { setup.directory.cleanUp() }
        #expect(try setup.resolver.settings(for: "django").secret?.value == "s3cret")
        let other = try setup.resolver.settings(for: "django", overrides: .init(clientID: "public"))
        #expect(other.secret == nil)
        #expect(other.notes == ["OAUTHFLOW_DJANGO_CLIENT_SECRET is for client confidential (OAUTHFLOW_DJANGO_CLIENT_ID), not public; not used"])
    }

    @Test func authenticationNoneLeavesAConfiguredSecretOut() throws {
        let setup = try Setup(
            "django:\n  client_id: confidential\n  client_secret_env: CONFIDENTIAL_SECRET\n", environment: ["CONFIDENTIAL_SECRET": "s3cret"])
        defer { setup.directory.cleanUp() }
        let settings = try setup.resolver.settings(for: "django", overrides: .init(authMethod: ProviderDescriptor.ClientAuthMethod.none))
        #expect(settings.secret == nil && settings.authMethod == ProviderDescriptor.ClientAuthMethod.none)
        #expect(settings.notes == ["client authentication is none; the client secret configured for confidential is not sent"])
    }

    @Test func aNamedVariableWinsAndMustBeSet() throws {
        let setup = try Setup("django:\n  client_id: c\n  client_secret_env: FILE_SECRET\n", environment: ["FILE_SECRET": "file", "NAMED": "named"])
        defer { setup.directory.cleanUp() }
        let named = try setup.resolver.settings(for: "django", overrides: .init(secretVariable: "NAMED"))
        #expect(named.secret?.value == "named" && named.secretSource == .namedVariable("NAMED"))
        let error = try #require(throws: ClientSettingsError.self) {
            try setup.resolver.settings(for: "django", overrides: .init(secretVariable: "UNSET"))
        }
        #expect(error.code == .missingSecret && error.message == "the client secret variable UNSET is not set")
    }

    /// A secret given where its variable's name goes (`--client-secret-env 'Xk9-q.Zr~7pL/AB+cd='`) is no variable name:
    /// the error says so without repeating it; a variable set but empty is told apart from one not set.
    @Test func aSecretGivenAsTheVariablesNameIsNotRepeated() throws {
        let setup = try Setup("django:\n  client_id: c\n", environment: ["EMPTY": ""])
        defer { setup.directory.cleanUp() }
        for given in ["Xk9-q.Zr~7pL/AB+cd=", "9LIVES", "s3cret value", "caf\u{E9}"] {
            let error = try #require(throws: ClientSettingsError.self) {
                try setup.resolver.settings(for: "django", overrides: .init(secretVariable: given))
            }
            #expect(error.code == .missingSecret && !error.message.contains(given), "\(error.message)")
            #expect(error.message.contains("is not a variable name"), "\(error.message)")
        }
        let empty = try #require(throws: ClientSettingsError.self) {
            try setup.resolver.settings(for: "django", overrides: .init(secretVariable: "EMPTY"))
        }
        #expect(empty.message == "the client secret variable EMPTY is set but empty")
    }

    @Test func aSecretFileIsReadWithTheHomeDirectoryExpanded() throws {
        let setup = try Setup("django:\n  client_id: c\n  client_secret_file: ~/google.secret\n")
        defer { setup.directory.cleanUp() }
        _ = try setup.directory.write("google.secret", "from-a-file\n")
        let settings = try setup.resolver.settings(for: "django")
        let path = setup.directory.url.appendingPathComponent("google.secret").path
        #expect(settings.secret?.value == "from-a-file")
        #expect(settings.secretSource == .clientsFileSecretFile(path, provider: "django", clientsFile: setup.file))
        try FileManager.default.removeItem(atPath: path)
        let error = try #require(throws: ClientSettingsError.self) { try setup.resolver.settings(for: "django") }
        #expect(error.code == .unreadableSecretFile && error.message.hasPrefix("cannot read the client secret file \(path)"))
    }

    /// A host's overrides name client A and its secret variable; a session of client B never gets that secret.
    @Test func aSecretNamedForOneClientIsNeverSentWithAnother() throws {
        let setup = try Setup(nil, environment: ["A_SECRET": "secret-of-a"])
        defer { setup.directory.cleanUp() }
        var resolver = setup.resolver
        resolver.overrides["example"] = ClientSettings.Overrides(clientID: "A", secretVariable: "A_SECRET")
        #expect(try resolver.settings(for: "example").secret?.value == "secret-of-a")
        let session = sampleSession()  // client "client"
        let settings = try resolver.settings(for: session)
        #expect(settings.clientID == "client" && settings.secret == nil && settings.secretSource == nil)
        #expect(settings.notes.contains { $0.contains("A_SECRET") && $0.contains("not used") })
        let pending = try resolver.settings(clientID: "B", provider: "example")
        #expect(pending.secret == nil)
    }

    /// A host's own client settings go with the variables they state: a stored session signed in with other values of
    /// them (another tenant's server) gets none of their credentials when it is refreshed; one with the same values does.
    @Test func aHostsClientIsNotLentToASessionOfAnotherTenant() throws {
        let session = sampleSession()  // client "client", tenant "acme"
        let other = OAuth(
            OAuth.Configuration(clients: ["example": ClientSettings(clientID: "client", secret: Secret("s3cret-value"), variables: ["tenant": "other"])]))
        let settings = try other.settings(for: session)
        #expect(settings.secret == nil && settings.variables["tenant"] == "acme")
        let same = OAuth(
            OAuth.Configuration(clients: ["example": ClientSettings(clientID: "client", secret: Secret("s3cret-value"), variables: ["tenant": "acme"])]))
        #expect(try same.settings(for: session).secret?.value == "s3cret-value")
    }

    @Test func aStoredSessionKeepsItsClientAndVariables() throws {
        let setup = try Setup("example:\n  client_id: another\n  client_secret_env: ANOTHER_SECRET\n", environment: ["ANOTHER_SECRET": "x"])
        defer { setup.directory.cleanUp() }
        let session = sampleSession()
        let settings = try setup.resolver.settings(for: session)
        #expect(settings.clientID == "client" && settings.variables == ["tenant": "acme"] && settings.secret == nil)
        let client = OAuthClient(provider: try TestDescriptor().provider(), configuration: settings.configuration(redirectURI: session.redirectURI))
        #expect(client.configuration.clientID == "client" && client.configuration.redirectURI == session.redirectURI)
        #expect(client.configuration.clientSecret == nil)
    }

    @Test(arguments: [
        (
            "django:\n  client_id: x\n  client_secret: hunter2\n", "literal_secret",
            ":3:3: `client_secret` holds a secret in clear; use client_secret_env or client_secret_file"
        ),
        ("django:\n  client_id: x\n  clientid: y\n", "invalid_clients_file", ":3:3: unknown key `clientid` under `django`"),
        (
            "django:\n  client_id: x\n  scopes: openid\n", "invalid_clients_file",
            ":3:3: `scopes` under `django` must be a list, such as [openid, email]"
        ),
        ("django:\n  client_id: x\n  variables: [a]\n", "invalid_clients_file", ":3:3: `variables` under `django` must be a mapping of name: value"),
        ("django:\n  client_id: x\n  client_auth: client_secret_magic\n", "invalid_clients_file", ": the entry for django cannot be read"),
        ("django: [\n", "invalid_clients_file", " is not valid YAML"),
    ])
    func aBrokenClientsFileIsRefusedWithItsPlace(_ text: String, _ code: String, _ message: String) throws {
        let setup = try Setup(text)
        defer { setup.directory.cleanUp() }
        let error = try #require(throws: ClientSettingsError.self) { try setup.resolver.settings(for: "django") }
        #expect(error.code.description == code)
        #expect(error.message.hasPrefix(setup.file + message), "\(error.message)")
        #expect(!error.message.contains("hunter2"))
    }

    @Test func aClientsFileThatIsNotAFileIsRefused() throws {
        let setup = try Setup(nil)
        defer { setup.directory.cleanUp() }
        try FileManager.default.createDirectory(atPath: setup.file, withIntermediateDirectories: true)
        let error = try #require(throws: ClientSettingsError.self) { try setup.resolver.settings(for: "django") }
        #expect(error.code == .unreadableClientsFile && error.message.hasPrefix("cannot read the clients file \(setup.file)"))
    }

    /// Library errors describe the problem; a host adds its own flags (the CLI's `--client-id`, `--client-secret-env`).
    @Test func noErrorNamesACommandLineFlag() throws {
        let setup = try Setup(nil)
        defer { setup.directory.cleanUp() }
        var messages: [String] = []
        for overrides in [ClientSettings.Overrides(), .init(clientID: "c", secretVariable: "UNSET")] {
            do { _ = try setup.resolver.settings(for: "django", overrides: overrides) } catch let error as ClientSettingsError {
                messages.append(error.message)
            }
        }
        #expect(messages.count == 2)
        for message in messages { #expect(!message.contains("--"), "\(message)") }
    }

    @Test func gitMappingsAreReadFromTheReservedKey() throws {
        let setup = try Setup(
            """
            gitlab:
              client_id: c
            credential_helpers:
              git:
                - url: https://git.example.com/team
                  provider: gitlab
                  username: oauth2
            """)
        defer { setup.directory.cleanUp() }
        let mappings = try setup.resolver.clientsFile().gitCredentialMappings()
        #expect(
            mappings == [ClientSettingsResolver.GitCredentialMapping(url: "https://git.example.com/team", provider: "gitlab", username: "oauth2")])

        let none = try Setup(nil)
        defer { none.directory.cleanUp() }
        #expect(try none.resolver.clientsFile().gitCredentialMappings().isEmpty)
        #expect(!(try none.resolver.clientsFile().exists))

        let broken = try Setup("credential_helpers:\n  git: {url: x}\n")
        defer { broken.directory.cleanUp() }
        let error = try #require(throws: ClientSettingsError.self) { try broken.resolver.clientsFile().gitCredentialMappings() }
        #expect(error.message == "\(broken.file): `credential_helpers.git` must be a list of {url, provider, account, variables, username} entries")
    }

    /// A key a mapping does not take is refused with its line, as an entry's is: a `client_id` there was silently
    /// ignored, and the entry's client used for the other server's remote. An entry's unknown key is called unknown,
    /// unless it is named as a private key or holds PEM text.
    @Test func unknownKeysOfAMappingOrAnEntryAreNamed() throws {
        let mapping = try Setup("credential_helpers:\n  git:\n    - url: https://git.example.com\n      provider: gitlab\n      client_id: other\n")
        defer { mapping.directory.cleanUp() }
        let refused = try #require(throws: ClientSettingsError.self) { try mapping.resolver.clientsFile().gitCredentialMappings() }
        #expect(refused.code == .invalidClientsFile)
        #expect(refused.message.contains(":5:7: unknown key `client_id` in `credential_helpers.git[0]`"), "\(refused.message)")

        let entry = try Setup("gitlab:\n  client_id: c\n  bogus_key: 1\n")
        defer { entry.directory.cleanUp() }
        let unknown = try #require(throws: ClientSettingsError.self) { try entry.resolver.settings(for: "gitlab") }
        #expect(unknown.code == .invalidClientsFile && unknown.message.contains("unknown key `bogus_key`"), "\(unknown.message)")
        let pem = try Setup("gitlab:\n  client_id: c\n  signing: \"-----BEGIN PRIVATE KEY-----\"\n")
        defer { pem.directory.cleanUp() }
        let literal = try #require(throws: ClientSettingsError.self) { try pem.resolver.settings(for: "gitlab") }
        #expect(literal.code == .literalSecret, "\(literal.message)")
    }

    /// git sends the password to whatever the remote's URL says: a mapping answers only https remotes, or http
    /// ones on this machine (RFC 6750 §5.3).
    @Test func gitMappingsForPlainHTTPRemotesAreRefused() throws {
        let mapping = { (url: String) in "credential_helpers:\n  git:\n    - url: \(url)\n      provider: gitlab\n" }
        let local = try Setup(mapping("http://127.0.0.1:8080/team"))
        defer { local.directory.cleanUp() }
        #expect(try local.resolver.clientsFile().gitCredentialMappings().map(\.url) == ["http://127.0.0.1:8080/team"])
        for url in ["http://git.example.com", "HTTP://git.example.com/team", "ftp://git.example.com", "https:///team"] {
            let setup = try Setup(mapping(url))
            defer { setup.directory.cleanUp() }
            let error = try #require(throws: ClientSettingsError.self) { try setup.resolver.clientsFile().gitCredentialMappings() }
            #expect(error.code == .invalidClientsFile)
            #expect(error.message.contains("`credential_helpers.git[0].url` must be an https URL"))
        }
    }

    @Test func settingsMakeAClientConfiguration() throws {
        let settings = ClientSettings(clientID: "c", secret: Secret("s"), authMethod: .clientSecretBasic, scopes: ["read"])
        let redirect = try #require(URL(string: "http://127.0.0.1:8765/callback"))
        let configuration = settings.configuration(redirectURI: redirect, requestOfflineAccess: false)
        #expect(configuration.clientID == "c" && configuration.clientSecret?.value == "s" && configuration.authMethod == .clientSecretBasic)
        #expect(configuration.scopes == ["read"] && !configuration.requestOfflineAccess && configuration.redirectURI == redirect)
    }
}
