// A stand-in for the part of Apple's CryptoKit that swift-crypto does not have, for type-checking OAuthFlowApple's
// Secure Enclave calls on Linux (scripts/apple-typecheck.sh builds it as a module named CryptoKit). The rest of
// CryptoKit's API is swift-crypto's (`Crypto`, which re-exports CryptoKit on Apple platforms), so this module
// re-exports it: `P256.Signing.PublicKey` is the one type on both sides. Nothing here runs.
//
// Sources, developer.apple.com/documentation/cryptokit/:
//   secureenclave, secureenclave/isavailable, secureenclave/p256/signing/privatekey,
//   …/privatekey/init(compactrepresentable:accesscontrol:authenticationcontext:),
//   …/privatekey/init(datarepresentation:authenticationcontext:), …/privatekey/datarepresentation,
//   …/privatekey/publickey, …/privatekey/signature(for:).
@_exported import Crypto
import Foundation
import LocalAuthentication
import Security

struct ShimOnly: Error {}

/// `enum SecureEnclave`.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public enum SecureEnclave {
    /// `static var isAvailable: Bool { get }`.
    public static var isAvailable: Bool { false }

    /// `enum P256`.
    public enum P256 {
        /// `enum Signing`.
        public enum Signing {
            /// `struct PrivateKey`: a P-256 key the Secure Enclave holds; its data representation is a handle only
            /// that device's Secure Enclave can use.
            public struct PrivateKey {
                /// `init(compactRepresentable: Bool = true, accessControl: SecAccessControl = SecAccessControlCreateWithFlags(nil,
                /// kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly, [], nil)!, authenticationContext: LAContext? = nil) throws`.
                public init(
                    compactRepresentable: Bool = true,
                    accessControl: SecAccessControl = SecAccessControlCreateWithFlags(
                        nil, kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly as AnyObject, [], nil)!,
                    authenticationContext: LAContext? = nil
                ) throws {
                    throw ShimOnly()
                }

                /// `init(dataRepresentation: Data, authenticationContext: LAContext? = nil) throws`.
                public init(dataRepresentation: Data, authenticationContext: LAContext? = nil) throws {
                    throw ShimOnly()
                }

                /// `var dataRepresentation: Data { get }`.
                public var dataRepresentation: Data { Data() }

                /// `var publicKey: P256.Signing.PublicKey { get }`.
                public var publicKey: Crypto.P256.Signing.PublicKey { Crypto.P256.Signing.PrivateKey().publicKey }

                /// `func signature<D>(for data: D) throws -> P256.Signing.ECDSASignature where D : DataProtocol`.
                public func signature<D: DataProtocol>(for data: D) throws -> Crypto.P256.Signing.ECDSASignature {
                    throw ShimOnly()
                }

                /// `func signature<D>(for digest: D) throws -> P256.Signing.ECDSASignature where D : Digest`.
                public func signature<D: Digest>(for digest: D) throws -> Crypto.P256.Signing.ECDSASignature {
                    throw ShimOnly()
                }
            }
        }
    }
}
