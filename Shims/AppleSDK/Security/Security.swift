// A stand-in for Apple's Security framework, for type-checking OAuthFlowApple's keychain calls on Linux
// (scripts/apple-typecheck.sh builds it as a module named Security). It copies only what the package's Apple-only
// lines call, with the Swift signatures Apple documents; nothing here runs.
//
// Sources, developer.apple.com/documentation/security/:
//   secitemadd(_:_:), secitemcopymatching(_:_:), secitemupdate(_:_:), secitemdelete(_:),
//   ksecclass, ksecclassgenericpassword (its primary key: access group, account, service, synchronizable),
//   ksecattrservice, ksecattraccount, ksecattraccessgroup, ksecattrgeneric, ksecattraccessible and its values,
//   ksecusedataprotectionkeychain, ksecvaluedata, ksecreturndata, ksecmatchlimit, ksecmatchlimitone,
//   security-framework-result-codes (errSecSuccess … errSecMissingEntitlement), secaccesscontrol,
//   secaccesscontrolcreatewithflags(_:_:_:_:), secaccesscontrolcreateflags.
//
// Core Foundation is copied as Swift sees it through bridging: `CFString` as `String`, `CFDictionary` as
// `[String: Any]`, `CFTypeRef` as `AnyObject`. So any `as CFDictionary` compiles here, and whether a cast of a
// `CFTypeRef` succeeds is decided only at run time on an Apple platform (Docs/apple.md, what the shims cannot catch).
import Foundation

/// `typealias OSStatus = Int32`.
public typealias OSStatus = Int32
/// `typealias CFTypeRef = AnyObject`.
public typealias CFTypeRef = AnyObject
/// `class CFString`, toll-free bridged to `String`.
public typealias CFString = String
/// `class CFDictionary`, toll-free bridged to `[AnyHashable: Any]`; the keychain's take `String` keys.
public typealias CFDictionary = [String: Any]
/// `class CFAllocator`.
public final class CFAllocator {}
/// `class CFError`.
public final class CFError {}

// MARK: - Keychain items

/// `func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus`.
@available(iOS 2.0, macOS 10.6, tvOS 9.0, watchOS 2.0, *)
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus { errSecUnimplemented }

/// `func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus`.
@available(iOS 2.0, macOS 10.6, tvOS 9.0, watchOS 2.0, *)
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus { errSecUnimplemented }

/// `func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus`.
@available(iOS 2.0, macOS 10.6, tvOS 9.0, watchOS 2.0, *)
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus { errSecUnimplemented }

/// `func SecItemDelete(_ query: CFDictionary) -> OSStatus`.
@available(iOS 2.0, macOS 10.6, tvOS 9.0, watchOS 2.0, *)
public func SecItemDelete(_ query: CFDictionary) -> OSStatus { errSecUnimplemented }

// The keys and values, each `let kSec…: CFString` (the strings are the SDK's, for distinctness only).
public let kSecClass: CFString = "class"
public let kSecClassGenericPassword: CFString = "genp"
public let kSecAttrService: CFString = "svce"
public let kSecAttrAccount: CFString = "acct"
public let kSecAttrAccessGroup: CFString = "agrp"
public let kSecAttrGeneric: CFString = "gena"
public let kSecAttrSynchronizable: CFString = "sync"
public let kSecAttrAccessible: CFString = "pdmn"
public let kSecAttrAccessibleAfterFirstUnlock: CFString = "ck"
public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = "cku"
public let kSecAttrAccessibleWhenUnlocked: CFString = "ak"
public let kSecAttrAccessibleWhenUnlockedThisDeviceOnly: CFString = "aku"
public let kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly: CFString = "akpu"
/// `let kSecUseDataProtectionKeychain: CFString` (iOS 13, macOS 10.15, tvOS 13, watchOS 6).
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public let kSecUseDataProtectionKeychain: CFString = "nleg"
public let kSecValueData: CFString = "v_Data"
public let kSecReturnData: CFString = "r_Data"
public let kSecReturnAttributes: CFString = "r_Attributes"
public let kSecMatchLimit: CFString = "m_Limit"
public let kSecMatchLimitOne: CFString = "m_LimitOne"
public let kSecMatchLimitAll: CFString = "m_LimitAll"

// The result codes, each `var errSec…: OSStatus { get }`.
public var errSecSuccess: OSStatus { 0 }
public var errSecUnimplemented: OSStatus { -4 }
public var errSecParam: OSStatus { -50 }
public var errSecAllocate: OSStatus { -108 }
public var errSecUserCanceled: OSStatus { -128 }
public var errSecNotAvailable: OSStatus { -25291 }
public var errSecAuthFailed: OSStatus { -25293 }
public var errSecDuplicateItem: OSStatus { -25299 }
public var errSecItemNotFound: OSStatus { -25300 }
public var errSecInteractionNotAllowed: OSStatus { -25308 }
public var errSecDecode: OSStatus { -26275 }
public var errSecMissingEntitlement: OSStatus { -34018 }

// MARK: - Access control (what CryptoKit's Secure Enclave keys take)

/// `class SecAccessControl`.
public final class SecAccessControl {}

/// `struct SecAccessControlCreateFlags: OptionSet, @unchecked Sendable`.
public struct SecAccessControlCreateFlags: OptionSet, @unchecked Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let userPresence = SecAccessControlCreateFlags(rawValue: 1 << 0)
    public static let biometryAny = SecAccessControlCreateFlags(rawValue: 1 << 1)
    public static let biometryCurrentSet = SecAccessControlCreateFlags(rawValue: 1 << 3)
    public static let devicePasscode = SecAccessControlCreateFlags(rawValue: 1 << 4)
    public static let privateKeyUsage = SecAccessControlCreateFlags(rawValue: 1 << 30)
}

/// `func SecAccessControlCreateWithFlags(_ allocator: CFAllocator?, _ protection: CFTypeRef, _ flags: SecAccessControlCreateFlags,
/// _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> SecAccessControl?`.
@available(iOS 8.0, macOS 10.10, tvOS 9.0, watchOS 2.0, *)
public func SecAccessControlCreateWithFlags(
    _ allocator: CFAllocator?, _ protection: CFTypeRef, _ flags: SecAccessControlCreateFlags, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecAccessControl? { nil }
