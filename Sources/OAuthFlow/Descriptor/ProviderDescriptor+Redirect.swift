extension ProviderDescriptor {
    /// Redirect URIs for native clients.
    package struct Redirect: Sendable, Hashable, Codable {
        package var loopback: Loopback = Loopback()
        /// The private-use URI scheme an app's redirect URI has (RFC 8252 §7.1), such as Google's iOS clients'
        /// `{reversed_client_id}`; it may name the descriptor's `{variables}` and what the app's sign-in fills in:
        /// `{client_id}`, `{reversed_client_id}` and `{bundle_id}` (Docs/apple.md).
        package var privateUseScheme: String?
        /// An app's whole private-use redirect URI, when the provider documents one other than `SCHEME:/oauth2redirect`
        /// (Auth0's `{bundle_id}://{domain}/ios/{bundle_id}/callback`); it begins with ``privateUseScheme`` and `:`.
        package var privateUseURI: String?
        /// An app's claimed https redirect URI (RFC 8252 §7.2, a universal link), such as Auth0's
        /// `https://{domain}/ios/{bundle_id}/callback`; the same placeholders as ``privateUseScheme``.
        package var claimedHTTPS: String?
        /// The provider takes only https redirect URIs on a registered web domain (Sign in with Apple): no loopback.
        package var webOnly = false

        package init() {}
    }

    /// The loopback redirect the CLI listens on (RFC 8252 §7.3).
    package struct Loopback: Sendable, Hashable, Codable {
        package enum Port: Sendable, Hashable, Codable {
            /// A free port chosen when the login starts.
            case ephemeral
            case fixed(Int)

            package init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let number = try? container.decode(Int.self) {
                    self = .fixed(number)
                } else {
                    let word = try container.decode(String.self)
                    guard word == "ephemeral" else {
                        throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected a port or `ephemeral`")
                    }
                    self = .ephemeral
                }
            }

            package func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                switch self {
                case .ephemeral: try container.encode("ephemeral")
                case let .fixed(port): try container.encode(port)
                }
            }
        }

        package var host: String = "127.0.0.1"
        package var port: Port = .ephemeral
        package var path: String = "/callback"
        /// With `host: localhost`: the redirect URI keeps the name (`http://localhost:PORT/PATH`) instead of
        /// `127.0.0.1`, for providers that take no other (Amazon Cognito); the listener binds 127.0.0.1 and ::1.
        package var writeLocalhost = false

        package init() {}
    }
}

// The schema's `redirect` keys: their shapes, defaults and reference sentences.
extension DescriptorSchema {
    static let loopbackDefaults = ProviderDescriptor.Loopback()

    static let redirectFields: [SectionKey<ProviderDescriptor.Redirect>] = [
        SectionKey(\.loopback, { $0.loopback = $1 }, "loopback", "The loopback redirect used by the CLI (RFC 8252 §7.3)."),
        SectionKey(
            \.privateUseScheme, { $0.privateUseScheme = $1 }, "private_use_scheme", .string(),
            "The private-use URI scheme of an app's redirect URI (RFC 8252 §7.1): a reverse domain name with a period, such as `com.example.app`. It may name the descriptor's `{variables}` and what the app's sign-in fills in: `{client_id}`, `{reversed_client_id}` (the client id's labels in reverse order, Google's iOS clients) and `{bundle_id}` (the app's bundle identifier). An app sign-in builds `SCHEME:/oauth2redirect` from it (one slash), and refuses a redirect URI the host gives with another scheme than this one or the bundle identifier (Docs/apple.md)."
        ),
        SectionKey(
            \.privateUseURI, { $0.privateUseURI = $1 }, "private_use_uri", .string(),
            "The whole private-use redirect URI, when the provider documents another form than `SCHEME:/oauth2redirect` (Auth0: `{bundle_id}://{domain}/ios/{bundle_id}/callback`). It begins with `private_use_scheme` and `:`, names the same placeholders, and has no query or fragment."
        ),
        SectionKey(
            \.claimedHTTPS, { $0.claimedHTTPS = $1 }, "claimed_https", .string(),
            "An app's claimed https redirect URI (RFC 8252 §7.2: a universal link the app's associated domains claim), such as Auth0's `https://{domain}/ios/{bundle_id}/callback`: https, a host and a path, no query or fragment; the same placeholders as `private_use_scheme`. An app sign-in uses it when asked (iOS 17.4 and macOS 14.4 or later), and refuses another https redirect URI the host gives."
        ),
        SectionKey(
            \.webOnly, { $0.webOnly = $1 }, "web_only", .boolean, default: "\(ProviderDescriptor.Redirect().webOnly)",
            "The provider takes only https redirect URIs on a domain registered with it (Sign in with Apple refuses loopback and localhost): sign in through the web routes (Docs/web.md); the CLI and `LoopbackSignIn` refuse such a provider before opening a browser."
        ),
    ]

    static let loopbackFields: [SectionKey<ProviderDescriptor.Loopback>] = [
        SectionKey(
            \.host, { $0.host = $1 }, "host", .string(), default: loopbackDefaults.host,
            "Loopback host of the redirect URI: `127.0.0.1`, `[::1]` or (not recommended) `localhost`, which is bound and written as `127.0.0.1` (RFC 8252 §8.3) unless `write_localhost` says otherwise: register `http://127.0.0.1:PORT/PATH` at the provider."
        ),
        SectionKey(
            \.writeLocalhost, { $0.writeLocalhost = $1 }, "write_localhost", .boolean, default: "\(loopbackDefaults.writeLocalhost)",
            "With `host: localhost`, the redirect URI keeps the name: `http://localhost:PORT/PATH`, for providers that accept no loopback IP literal (Amazon Cognito). The listener then binds 127.0.0.1 and ::1 on the same port (127.0.0.1 alone where the machine has no IPv6 loopback), so the callback arrives whichever address the browser resolves `localhost` to. RFC 8252 §8.3 advises against the name: a resolver or hosts file can send it elsewhere, so lint notes it."
        ),
        SectionKey(
            \.port, "port", .either([.integer(1...65535), .choice(["ephemeral"])]), default: "ephemeral",
            "A fixed port, or `ephemeral` for a free port chosen at login time (RFC 8252 §7.3); `authorize-url`, which has no listener, writes an ephemeral port as 8765 unless given `--port`."
        ) { o, key, section in
            switch o.raw(key) {
            case nil: return
            case .string("ephemeral")?: section.port = .ephemeral
            case let .number(number)? where Int(exactly: number) != nil: section.port = .fixed(Int(number))
            default: throw PlainObject.mismatch("a port or `ephemeral`", at: o.path + [key.stringValue])
            }
        },
        SectionKey(\.path, { $0.path = $1 }, "path", .string(pattern: "^/[^?#\\s]*$"), default: loopbackDefaults.path, "Path of the redirect URI."),
    ]
}

extension ProviderDescriptor.Redirect: DescriptorSection {
    package static var keys: [SectionKey<Self>] { DescriptorSchema.redirectFields }
}

extension ProviderDescriptor.Loopback: DescriptorSection {
    package static var keys: [SectionKey<Self>] { DescriptorSchema.loopbackFields }
}
