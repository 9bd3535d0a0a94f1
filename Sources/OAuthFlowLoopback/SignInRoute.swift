#if NIO
import Foundation
import OAuthFlow

/// How a sign-in reaches the user: through a browser and a loopback redirect, or with a code entered
/// on another device (RFC 8628).
public enum SignInRoute: Sendable, Hashable {
    /// ``LoopbackSignIn``.
    case browser
    /// `DeviceSignIn`; the reason is why no browser can be opened, nil when the device flow was asked for.
    case deviceCode(SystemBrowser.UnavailableReason?)

    /// The browser, unless none can be opened here and the provider declares the device grant.
    ///
    /// - Parameters:
    ///   - provider: The resolved provider; its policy says whether it takes the device grant.
    ///   - environment: Read by ``SystemBrowser/unavailableReason(environment:)``.
    public static func automatic(
        for provider: Provider,
        environment: [String: String]
    ) -> SignInRoute {
        if provider.policy.supportsDeviceFlow, let reason = SystemBrowser.unavailableReason(environment: environment) {
            return .deviceCode(reason)
        }
        return .browser
    }
}
#endif
