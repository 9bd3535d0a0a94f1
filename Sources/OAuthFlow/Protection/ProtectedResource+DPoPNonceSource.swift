import Crypto
import CryptoExtras
import Foundation

extension ProtectedResource {
    /// The nonces a protected resource asks DPoP proofs to carry (RFC 9449 §9), made without state:
    /// a time slot and its HMAC under a key of the process. A nonce is current during its slot and the next.
    public struct DPoPNonceSource: Sendable {
        private let key: SymmetricKey
        /// How long one slot lasts.
        public let slot: TimeInterval

        public init(slot: TimeInterval = 300) {
            key = SymmetricKey(size: .bits256)
            self.slot = max(1, slot)
        }

        /// The nonce to send now, in `DPoP-Nonce`.
        public func current(now: Date = Date()) -> String { nonce(for: Int64(now.timeIntervalSince1970 / slot)) }

        func isCurrent(_ nonce: String, now: Date) -> Bool {
            let present = Int64(now.timeIntervalSince1970 / slot)
            return [present, present - 1].contains { ConstantTime.equals(nonce, self.nonce(for: $0)) }
        }

        private func nonce(for slot: Int64) -> String {
            var bytes = withUnsafeBytes(of: slot.bigEndian) { Array($0) }
            bytes += Array(HMAC<SHA256>.authenticationCode(for: bytes, using: key)).prefix(16)
            return Base64URL.encode(Data(bytes))
        }
    }
}
