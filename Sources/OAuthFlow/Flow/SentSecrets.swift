import Foundation

/// What a request sent that the answer must not bring back: a server's error text is quoted in
/// errors, logs and on terminals (`verify-token`, `token refresh`), so an error answer that echoes
/// the presented token, a refresh token, a code or the client's credentials has them blanked
/// before anything reads it.
struct SentSecrets: Sendable {
    /// The body parameters whose values are credentials or tokens.
    static let parameterNames: Set<String> = [
        "token", "refresh_token", "code", "code_verifier", "device_code", "client_secret", "client_assertion",
        "assertion", "subject_token", "actor_token", "password",
    ]
    /// Shorter values are not blanked: they would match ordinary words.
    static let shortest = 6
    static let replacement = "[redacted]"

    private(set) var values: [String] = []

    /// The credentials among a request's body parameters.
    init(parameters: [(String, String)]) {
        for (name, value) in parameters where Self.parameterNames.contains(name) { add(value) }
    }

    /// Values sent elsewhere than in a body (an access token in a header).
    init(values: [String]) {
        for value in values { add(value) }
    }

    /// Adds a value, as sent and form-encoded (an echoed form body).
    mutating func add(_ value: String) {
        guard value.utf8.count >= Self.shortest else { return }
        values.append(value)
        let encoded = FormEncoding.encode(value)
        if encoded != value { values.append(encoded) }
    }

    /// Adds the credentials of a Basic `Authorization` header (RFC 7617), its base64 text as sent.
    mutating func addBasicCredentials(_ header: String) {
        guard let credentials = header.split(separator: " ").last, credentials.count < header.count else { return }
        add(String(credentials))
    }

    /// `text` with every sent value blanked.
    func scrub(_ text: String) -> String {
        values.reduce(text) { $0.replacingOccurrences(of: $1, with: Self.replacement) }
    }

    /// `response` with the sent values blanked from its body and headers when it is an error: a status
    /// other than 2xx, or a JSON object with an `error` member. A successful answer is left as it came
    /// (a server that does not rotate returns the refresh token it was sent). A JSON body is looked at again as its
    /// reader will see it: a value its text hides behind escapes (`\/`, as PHP writes every `/`, or `\u002B`) is blanked
    /// in the decoded strings, and the body is written again without them.
    func scrub(_ response: TransportResponse) -> TransportResponse {
        guard !values.isEmpty, Self.isError(response) else { return response }
        let text = String(decoding: response.body, as: UTF8.self)
        let echoed = values.contains { value in text.contains(value) || response.headers.values.contains { $0.contains(value) } }
        var body = echoed ? Data(scrub(text).utf8) : response.body
        if text.contains("\\"), let object = try? ServerJSON.object(body) {
            let cleaned = scrub(JSONValue.object(object))
            if cleaned != .object(object), let encoded = try? JSONEncoder().encode(cleaned) { body = encoded }
        }
        guard echoed || body != response.body else { return response }
        return TransportResponse(status: response.status, headers: response.headers.mapValues(scrub), body: body)
    }

    /// `value` with every sent value blanked in its strings, member names included.
    private func scrub(_ value: JSONValue) -> JSONValue {
        switch value {
        case let .string(text): .string(scrub(text))
        case let .array(items): .array(items.map(scrub))
        case let .object(members): .object(Dictionary(members.map { (scrub($0.key), scrub($0.value)) }, uniquingKeysWith: { first, _ in first }))
        case .number, .bool, .null: value
        }
    }

    private static func isError(_ response: TransportResponse) -> Bool {
        guard (200..<300).contains(response.status) else { return true }
        // Only a body that can name an `error` member (as written, or through an escape) is decoded: decoding every
        // token answer a second time to find none would be waste.
        let mayNameError = response.body.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            return UTF8Search.contains("error", in: bytes) || UTF8Search.contains("\\", in: bytes)
        }
        guard mayNameError, let object = try? ServerJSON.object(response.body) else { return false }
        return object["error"] != nil && object["access_token"] == nil
    }
}
