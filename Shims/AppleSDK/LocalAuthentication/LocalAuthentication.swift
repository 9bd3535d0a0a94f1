// A stand-in for Apple's LocalAuthentication, for type-checking on Linux (scripts/apple-typecheck.sh builds it as a
// module named LocalAuthentication). The package calls nothing of it; CryptoKit's Secure Enclave keys name `LAContext`
// in their initialisers, so the CryptoKit shim needs the type. Nothing here runs.
//
// Source: developer.apple.com/documentation/localauthentication/lacontext (`class LAContext : NSObject`).
import Foundation

/// `class LAContext: NSObject` (iOS 8, macOS 10.10, watchOS 9; not tvOS).
@available(iOS 8.0, macOS 10.10, watchOS 9.0, *)
open class LAContext: NSObject {
    public override init() {
        super.init()
    }
}
