/// A valid access token read from a stored session file without Foundation, for the launcher's fast path.
///
/// It answers only when it is sure: the session directory is private and not a link, the file is a private
/// regular file of at most 1 MiB, it parses as format 1 for this very key, no refresh record waits beside it
/// (``FileTokenStore`` would commit that first), every member has the type the full command decodes, the tokens
/// are bound neither to a DPoP key nor to a client certificate (the full command checks the binding), and the access token has no expiry or expires more than
/// `skew` seconds from now. Its origin (``authorizationServer`` and ``clientID``) is the caller's to check against
/// ``SessionOriginMemo`` before the token leaves. Anything else, odd or merely unusual, gives nil: the caller then runs the full
/// command, which reads the same file through ``FileTokenStore``, refreshes, or explains.
public struct SessionPeek: Sendable, Hashable {
    public let accessToken: String
    /// Seconds since 1970; nil when the provider gave no lifetime.
    public let expiresAt: Int?
    /// The authorization server that issued the tokens; nil in a session stored before OAuthFlow recorded it.
    public let authorizationServer: String?
    /// The client the tokens were issued to.
    public let clientID: String

    /// The session file's format this reader knows (`StoredSession.currentFormatVersion`).
    public static let formatVersion = 1
    /// The most of a session file read.
    public static let maximumSize = 1 << 20

    public static func read(
        providerID: String, account: String, directory: String, now: Double = SessionPeek.now(), skew: Double = 60
    ) -> SessionPeek? {
        guard RawFile.isPrivateDirectory(directory) == true else { return nil }
        let stem = directory + "/" + StateFiles.sessionStem(providerID: providerID, account: account)
        guard !RawFile.exists(stem + ".received.json") else { return nil }
        guard
            let bytes = try? RawFile.read(
                stem + ".json", limit: maximumSize, followLinks: false,
                inspect: { info in if info.st_mode & 0o077 != 0 { throw RawFile.ReadError(reason: "not private", kind: .system) } }),
            let session = CompactJSON.parse(bytes), Self.isWhole(session), session["formatVersion"]?.integer == formatVersion,
            session["key"]?["providerID"]?.string == providerID, session["key"]?["account"]?.string == account,
            let tokens = session["tokens"], let accessToken = tokens["accessToken"]?.string, !accessToken.isEmpty
        else { return nil }
        let expiresAt: Int?
        switch tokens["expiresAt"] {
        case nil, .null?: expiresAt = nil
        case let .string(text)?:
            guard let seconds = Self.epochSeconds(iso8601: text) else { return nil }
            expiresAt = seconds
        default: return nil
        }
        if let expiresAt, now + skew >= Double(expiresAt) { return nil }
        guard let clientID = session["clientID"]?.string else { return nil }
        return SessionPeek(
            accessToken: accessToken, expiresAt: expiresAt, authorizationServer: session["authorizationServer"]?.string, clientID: clientID)
    }

    /// The client authentication methods a session may name (`ProviderDescriptor.ClientAuthMethod`'s raw values;
    /// a test keeps the two lists equal).
    public static let clientAuthenticationMethods: Set<String> = [
        "none", "client_secret_basic", "client_secret_post", "client_secret_jwt", "private_key_jwt", "tls_client_auth",
        "self_signed_tls_client_auth",
    ]

    /// Whether every member `StoredSession` decodes has the type it decodes (JSONDecoder, ISO 8601 dates): the launcher
    /// answers only from a file the full command would read too. A DPoP-bound session (a proof key) or a certificate-bound
    /// one (a certificate thumbprint) is left to the full command, which checks the binding.
    static func isWhole(_ session: CompactJSON) -> Bool {
        func isDate(_ value: CompactJSON?) -> Bool { value?.string.flatMap(epochSeconds(iso8601:)) != nil }
        func isOptional(_ value: CompactJSON?, _ check: (CompactJSON) -> Bool) -> Bool {
            guard let value, value != .null else { return true }
            return check(value)
        }
        func isStrings(_ value: CompactJSON?) -> Bool {
            guard case let .array(items)? = value else { return false }
            return items.allSatisfy { $0.string != nil }
        }
        func isStringMap(_ value: CompactJSON?) -> Bool {
            guard case let .object(members)? = value else { return false }
            return members.values.allSatisfy { $0.string != nil }
        }
        guard let key = session["key"], key["providerID"]?.string != nil, key["account"]?.string != nil,
            isStringMap(session["variables"]), session["clientID"]?.string != nil,
            isOptional(session["redirectURI"], { $0.string.map(isURIText) == true }), isDate(session["updatedAt"]),
            isOptional(session["clientAuthentication"], { $0.string.map(clientAuthenticationMethods.contains) == true }),
            isOptional(session["authorizationServer"], { $0.string != nil }), isOptional(session["tokenServers"], isStrings),
            isOptional(session["offlineAccessRequested"], { if case .bool = $0 { return true } else { return false } }),
            isOptional(
                session["providerSession"],
                { $0["issuer"]?.string != nil && $0["subject"]?.string != nil && isOptional($0["sid"]) { $0.string != nil } }),
            let tokens = session["tokens"], tokens["accessToken"]?.string != nil, tokens["tokenType"]?.string != nil,
            isOptional(tokens["refreshToken"], { $0.string != nil }), isOptional(tokens["idToken"], { $0.string != nil }),
            isStrings(tokens["scopes"]), isDate(tokens["issuedAt"]), isOptional(tokens["expiresAt"], { isDate($0) }),
            case .object? = tokens["additionalFields"], isOptional(tokens["proofKey"], { _ in false }),
            isOptional(tokens["certificateThumbprint"], { _ in false }),
            isOptional(tokens["callbackParameters"], { isStringMap($0) }),
            // A session a security event marked for a new sign-in gives no token: the full command says why.
            isOptional(session["reauthenticationRequired"], { _ in false })
        else { return false }
        return true
    }

    /// A URI as `URL(string:)` reads one: not empty, and only the characters RFC 3986 allows (`%` included).
    static func isURIText(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || Array("-._~:/?#[]@!$&'()*+,;=%".utf8).contains(byte)
            }
    }

    /// The wall clock, in seconds since 1970.
    public static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` (what JSONEncoder's `.iso8601` writes) as seconds since 1970; nil for any
    /// other form.
    public static func epochSeconds(iso8601 text: String) -> Int? {
        let bytes = Array(text.utf8)
        guard bytes.count == 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"), bytes[19] == UInt8(ascii: "Z")
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19), (1...12).contains(month), (1...31).contains(day), hour < 24,
            minute < 60, second < 61
        else { return nil }
        // Days from the civil date (proleptic Gregorian), without the C library's time zone machinery.
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return days * 86_400 + hour * 3_600 + minute * 60 + second
    }
}
