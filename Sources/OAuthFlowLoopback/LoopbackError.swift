#if NIO
import Foundation
import OAuthFlow

/// Why the receiver could not start or stopped waiting.
public struct LoopbackError: MessageError, Hashable {
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        public var description: String { name }

        public static let portInUse = Code("port_in_use")
        public static let bindFailed = Code("bind_failed")
        public static let timedOut = Code("timed_out")
        public static let notLoopback = Code("not_loopback")
        /// The wait ended without a finishing callback (reported rather than trapped; not expected).
        public static let noResult = Code("no_result")
    }

    public let code: Code
    public let message: String
}
#endif
