import Foundation

/// The record a store keeps of a refresh answer from the moment it arrives until it is checked.
///
/// It is written in two steps, so that the one at the answer's arrival is a single write:
/// before the request, ``header(keeping:encode:)`` (the session to keep, the one being refreshed
/// with its access token marked expired, ``TokenSet/keepingRefreshToken(of:)``) and
/// ``noAnswerYet``; at arrival, ``frame(_:)`` of the raw answer in place of the latter.
///
/// Layout: the line `oauthflow-refresh-answer 1`, the session's length in bytes on a line, the
/// session's JSON, then ten digits and a newline giving the answer's length, and the answer.
/// Anything after that is reserved room.
package enum RefreshAnswerRecord {
    static let magic = Data("oauthflow-refresh-answer 1\n".utf8)

    /// Where the answer's frame goes until one arrives: not a length, so the record reads as "no answer yet".
    package static let noAnswerYet = Data("----------\n".utf8)

    /// The part written before the request is sent.
    ///
    /// - Parameters:
    ///   - session: The session being refreshed.
    ///   - encode: The store's session encoding.
    package static func header(keeping session: StoredSession, encode: (StoredSession) throws -> Data) throws -> Data {
        var template = session
        template.tokens = template.tokens.keepingRefreshToken(of: template.tokens)
        let json = try encode(template)
        return magic + Data("\(json.count)\n".utf8) + json
    }

    /// An answer with its length in front: ten digits and a newline.
    package static func frame(_ answer: Data) -> [UInt8] {
        var framed = [UInt8](repeating: UInt8(ascii: "0"), count: 11)
        framed[10] = UInt8(ascii: "\n")
        var count = answer.count, digit = 9
        while count > 0, digit >= 0 {
            framed[digit] += UInt8(count % 10)
            count /= 10
            digit -= 1
        }
        framed.append(contentsOf: answer)
        return framed
    }

    /// Whether `data` is such a record (rather than a session a store wrote some other way).
    package static func isRecord(_ data: Data) -> Bool {
        data.starts(with: magic)
    }

    /// What a record holds: the session being refreshed (its access token marked expired) and, when
    /// the answer arrived and carries one, the refresh token it issued.
    package struct Contents: Sendable {
        /// The session as it was when the refresh began.
        package var refreshing: StoredSession
        /// Whether the answer arrived.
        package var answered: Bool
        /// The answer's refresh token, when it arrived with one.
        package var issuedRefreshToken: Secret?

        /// The session to keep: the one refreshed, with the answer's refresh token when it has one.
        /// Nothing else of an unchecked answer is taken.
        package var sessionToKeep: StoredSession {
            var session = refreshing
            if let issuedRefreshToken { session.tokens.refreshToken = issuedRefreshToken }
            return session
        }
    }

    /// Reads a record.
    ///
    /// - Throws: ``TokenStoreError`` `corrupt` for data that is not a readable record, or whose
    ///   session `decode` refuses.
    package static func contents(of data: Data, path: String, decode: (Data, String) throws -> StoredSession) throws -> Contents {
        guard isRecord(data) else { throw TokenStoreError(.corrupt, "\(path) is not a refresh record", path: path) }
        let rest = data.dropFirst(magic.count)
        guard let newline = rest.firstIndex(of: UInt8(ascii: "\n")),
            let length = Int(String(decoding: rest[rest.startIndex..<newline], as: UTF8.self)),
            length >= 0, length <= rest.endIndex - (newline + 1)
        else {
            throw TokenStoreError(.corrupt, "\(path) is not a readable refresh record", path: path)
        }
        let start = newline + 1
        let session = try decode(Data(rest[start..<(start + length)]), path)
        let framed = rest[(start + length)...]
        guard framed.count >= 11, framed[framed.startIndex + 10] == UInt8(ascii: "\n"),
            let count = Int(String(decoding: framed.prefix(10), as: UTF8.self)), count > 0, count <= framed.count - 11
        else {
            return Contents(refreshing: session, answered: false, issuedRefreshToken: nil)
        }
        let answer = TransportResponse(status: 200, body: Data(framed.dropFirst(11).prefix(count)))
        let issued = TokenResponseParser.issuedRefreshToken(in: answer, format: .auto).map(Secret.init)
        return Contents(refreshing: session, answered: true, issuedRefreshToken: issued)
    }

    /// The session a record says to keep (``Contents/sessionToKeep``); data that is not such a
    /// record is decoded as a session.
    ///
    /// - Returns: nil when no answer arrived (a refresh in flight, or one that died before its
    ///   answer: either way the stored session is the session).
    /// - Throws: ``TokenStoreError`` `corrupt` for a record that cannot be read.
    package static func session(in data: Data, path: String, decode: (Data, String) throws -> StoredSession) throws -> StoredSession? {
        guard isRecord(data) else { return try decode(data, path) }
        let contents = try contents(of: data, path: path, decode: decode)
        return contents.answered ? contents.sessionToKeep : nil
    }
}
