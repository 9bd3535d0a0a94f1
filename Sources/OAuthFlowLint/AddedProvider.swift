import Foundation
import OAuthFlow

/// A descriptor ``OAuthFlow/OAuth/addProvider(issuer:id:options:directory:replacing:)`` wrote.
public struct AddedProvider: Sendable {
    /// What was read and drafted.
    public let draft: DescriptorDraft
    /// The file written.
    public let file: URL
}
