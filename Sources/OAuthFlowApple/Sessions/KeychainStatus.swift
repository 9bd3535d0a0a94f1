import Foundation

/// A keychain answer other than success, by its Security framework name: `errSecInteractionNotAllowed (-25308)`,
/// never a bare number.
struct KeychainStatus: Error, Sendable, Hashable, CustomStringConvertible {
    let status: Int32

    init(_ status: Int32) {
        self.status = status
    }

    static let itemNotFound = KeychainStatus(-25300)
    static let duplicateItem = KeychainStatus(-25299)
    /// The item's accessibility does not allow it now: the device is locked (or not yet unlocked since it started).
    static let interactionNotAllowed = KeychainStatus(-25308)
    /// The app lacks the keychain-access-groups entitlement for the access group, or any application identifier
    /// (an unsigned macOS command-line tool or test run).
    static let missingEntitlement = KeychainStatus(-34018)

    /// Security framework result codes (SecBase.h), by value.
    private static let names: [Int32: String] = [
        -4: "errSecUnimplemented", -34: "errSecDiskFull", -36: "errSecIO", -50: "errSecParam", -61: "errSecWrPerm",
        -108: "errSecAllocate", -128: "errSecUserCanceled", -909: "errSecBadReq", -2070: "errSecInternalComponent",
        -25291: "errSecNotAvailable", -25292: "errSecReadOnly", -25293: "errSecAuthFailed", -25294: "errSecNoSuchKeychain",
        -25299: "errSecDuplicateItem", -25300: "errSecItemNotFound", -25308: "errSecInteractionNotAllowed",
        -26275: "errSecDecode", -34018: "errSecMissingEntitlement", -34020: "errSecRestrictedAPI",
    ]

    /// What the code means, in the words the store's errors use.
    private static let meanings: [Int32: String] = [
        -34: "the disk is full", -25291: "no keychain is available", -25293: "the user could not be authenticated",
        -25299: "the item already exists", -25300: "there is no such item",
        -25308: "the device is locked (the item's accessibility does not allow reading it now)",
        -34018: "the app lacks a keychain entitlement (keychain-access-groups, or an application identifier)",
        -128: "the user cancelled",
    ]

    /// `errSecName (-status)`, or `OSStatus -status` for a code the table does not name.
    var name: String {
        "\(Self.names[status] ?? "OSStatus") (\(status))"
    }

    var description: String {
        Self.meanings[status].map { "\($0): \(name)" } ?? name
    }
}
