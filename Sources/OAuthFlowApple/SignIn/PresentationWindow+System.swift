// The app's windows as the sheets look them up: UIKit's scenes or AppKit's windows. Type-checked on Linux against
// Shims/AppleSDK (UIKit), run only on an Apple platform; which window wins is PresentationWindow's, tested on Linux.
#if canImport(AuthenticationServices) && !os(tvOS) && !os(watchOS)
import AuthenticationServices
#if canImport(UIKit)
import UIKit
#elseif canImport(AppKit)
import AppKit
#endif

extension PresentationWindow {
    #if canImport(UIKit)
    /// The key window of the first foreground-active scene among `scenes`.
    @MainActor static func foreground(among scenes: [UIWindowScene]) -> UIWindow? {
        choose(among: scenes, isForegroundActive: { $0.activationState == .foregroundActive }, windows: { $0.windows }, isKey: { $0.isKeyWindow })
    }

    /// The app's window to present from, looked up now: the key window of a foreground-active scene. Not in an app
    /// extension, which has no `UIApplication.shared`.
    @available(iOSApplicationExtension, unavailable)
    @available(visionOSApplicationExtension, unavailable)
    @MainActor static func appWindow() -> ASPresentationAnchor? {
        foreground(among: UIApplication.shared.connectedScenes.compactMap { $0 as? UIWindowScene })
    }
    #elseif canImport(AppKit)
    /// The app's key window, or its main window, looked up now.
    @MainActor static func appWindow() -> ASPresentationAnchor? {
        NSApplication.shared.keyWindow ?? NSApplication.shared.mainWindow
    }
    #endif
}
#endif
