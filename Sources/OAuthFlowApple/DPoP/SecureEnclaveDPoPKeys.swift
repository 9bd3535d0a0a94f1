import Crypto
import Foundation
import OAuthFlow

/// DPoP keys in the Secure Enclave (ES256): the session keeps the key's `dataRepresentation`, a handle only this
/// device's Secure Enclave can use, never the private key.
///
/// Register it at launch and make sign-ins' keys with it:
///
/// ```swift
/// DPoPKey.register(SecureEnclaveDPoPKeys())
/// let result = try await DPoPKey.keeping(in: SecureEnclaveDPoPKeys()) { try await signIn() }
/// ```
public struct SecureEnclaveDPoPKeys: DPoPKey.Keeper {
    public var name: String { "secure-enclave" }
    let keys: any EnclaveKeys

    #if canImport(CryptoKit)
    public init() {
        self.init(keys: CryptoKitEnclaveKeys())
    }
    #endif

    init(keys: any EnclaveKeys) {
        self.keys = keys
    }

    /// A new P-256 key in the Secure Enclave.
    ///
    /// - Throws: `FlowError` `dpop` on a device without one (`SecureEnclave.isAvailable`: a Mac without Apple silicon
    ///   or a T2 chip, some simulators).
    public func newSigner() throws -> any DPoPKey.Signer {
        guard keys.isAvailable else {
            throw FlowError.dpopRefused("this device has no Secure Enclave to hold a DPoP key (SecureEnclave.isAvailable is false)")
        }
        let reference: Data
        do {
            reference = try keys.newKey()
        } catch {
            throw FlowError.dpopRefused("the Secure Enclave could not make a DPoP key (\(error))")
        }
        return try signer(for: reference)
    }

    /// The key `keyReference` names.
    ///
    /// - Throws: `FlowError` `dpopKeyMissing` when this device's Secure Enclave cannot reopen it while the device's
    ///   protected data is available (a session restored from a backup or onto another device, an erased or reset
    ///   Secure Enclave: sign in again); `dpopKeyUnavailable` when the device has not been unlocked since it started,
    ///   or the error asks for the user or the device (authentication, a cancel, a busy enclave): the session is kept,
    ///   try again later.
    public func signer(for keyReference: Data) throws -> any DPoPKey.Signer {
        do {
            return Signer(keys: keys, keyReference: keyReference, publicKey: try keys.publicKey(of: keyReference))
        } catch {
            throw Self.failure(error, protectedDataAvailable: keys.isProtectedDataAvailable)
        }
    }

    /// Errors that wait for the user or the device, never a lost key (by domain, the codes): the keychain's
    /// `errSecInteractionNotAllowed`, `errSecAuthFailed`, `errSecUserCanceled`, `errSecNotAvailable`; any
    /// LocalAuthentication error; CryptoTokenKit's `communicationError`, `canceledByUser`, `authenticationFailed`,
    /// `authenticationNeeded`.
    static let waiting: [String: Set<Int>?] = [
        "NSOSStatusErrorDomain": [-25308, -25293, -128, -25291],
        "com.apple.LocalAuthentication": nil,
        "CryptoTokenKit": [-2, -4, -5, -9],
    ]

    /// What an error of the Secure Enclave means for the session: a key that is not there (`errSecItemNotFound`), or
    /// one that cannot be reopened while protected data is available and for no reason that waits for the user or
    /// the device, ends it; anything else keeps it.
    static func failure(_ error: any Error, protectedDataAvailable: @autoclosure () -> Bool) -> FlowError {
        let bridged = error as NSError
        let notFound = bridged.domain == "NSOSStatusErrorDomain" && bridged.code == Int(KeychainStatus.itemNotFound.status)
        let waits = Self.waiting[bridged.domain].map { codes in codes.map { $0.contains(bridged.code) } ?? true } ?? false
        guard notFound || (!waits && protectedDataAvailable()) else {
            return FlowError(
                .dpopKeyUnavailable,
                "the Secure Enclave could not use the session's DPoP key now (\(bridged.domain) \(bridged.code)); the session is kept and nothing was sent: try again later"
            )
        }
        return FlowError.dpopKeyMissing(
            "the session's DPoP key cannot be opened by this device's Secure Enclave (\(bridged.domain) \(bridged.code): a session restored from a backup or moved to another device, or a reset Secure Enclave): its tokens cannot be used, and nothing was sent; sign in again"
        )
    }

    struct Signer: DPoPKey.Signer {
        let keys: any EnclaveKeys
        let keyReference: Data
        let publicKey: P256.Signing.PublicKey

        func signature(for data: Data) throws -> P256.Signing.ECDSASignature {
            try keys.signature(for: data, with: keyReference)
        }
    }
}

extension ErrorCode where Domain == FlowError {
    /// The Secure Enclave could not use a session's DPoP key now, for another reason than the key being gone: nothing
    /// was sent and the session is kept; try again later (`dpopKeyMissing` is the key being gone: sign in again).
    public static let dpopKeyUnavailable = Self("dpop_key_unavailable")
}
