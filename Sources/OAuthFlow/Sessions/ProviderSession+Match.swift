import Foundation

extension ProviderSession {
    /// The provider sessions a logout names: by `sid`, or every session of a `sub` (Back-Channel Logout 1.0 §2.7).
    public struct Match: Sendable, Hashable, CustomStringConvertible {
        public let issuer: String
        public let subject: String?
        public let sessionID: String?

        /// Nil when neither a subject nor a session id is given: such a logout names nobody.
        public init?(issuer: String, subject: String?, sessionID: String?) {
            let subject = subject.flatMap { $0.isEmpty ? nil : $0 }
            let sessionID = sessionID.flatMap { $0.isEmpty ? nil : $0 }
            guard subject != nil || sessionID != nil else { return nil }
            self.issuer = issuer
            self.subject = subject
            self.sessionID = sessionID
        }

        /// Whether `session` is one of those named: same issuer, and the `sid` (when given) and the `sub` (when given).
        public func matches(_ session: ProviderSession?) -> Bool {
            guard let session, session.issuer == issuer else { return false }
            if let sessionID, session.sessionID != sessionID { return false }
            if let subject, session.subject != subject { return false }
            return true
        }

        public var description: String {
            [sessionID.map { "sid \(TerminalText.escaped($0))" }, subject.map { "sub \(TerminalText.escaped($0))" }]
                .compactMap { $0 }.joined(separator: ", ")
        }
    }
}
