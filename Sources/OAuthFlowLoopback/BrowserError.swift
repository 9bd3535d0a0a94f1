#if NIO
import Foundation
import OAuthFlow

/// A browser could not be started.
public struct BrowserError: MessageError {
    public let message: String
}
#endif
