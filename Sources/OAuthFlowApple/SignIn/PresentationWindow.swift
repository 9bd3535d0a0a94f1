import Foundation

/// Which window a sign-in sheet is presented from, decided when the sheet opens (not when the authenticator is made:
/// a scene may connect, go to the background or go away meanwhile). Compiled and tested on Linux;
/// `SystemWebAuthenticator` hands it UIKit's scenes and windows.
///
/// The window is the key window of a foreground-active scene, as Auth0.swift picks it: Apple's
/// `presentationContextInvalid` says a window outside a foreground scene cannot show the sheet. On a multi-window
/// iPad several scenes may be foreground-active; the one with the key window wins, else the first active scene's
/// last window.
enum PresentationWindow {
    /// The window to present from among `scenes`, or nil when no scene is foreground-active or none has a window.
    ///
    /// - Parameters:
    ///   - scenes: The app's connected scenes (windows scenes only).
    ///   - isForegroundActive: Whether a scene's `activationState` is `foregroundActive`.
    ///   - windows: A scene's windows, back to front.
    ///   - isKey: Whether a window is the key window.
    static func choose<Scene, Window>(
        among scenes: [Scene], isForegroundActive: (Scene) -> Bool, windows: (Scene) -> [Window], isKey: (Window) -> Bool
    ) -> Window? {
        let active = scenes.filter(isForegroundActive)
        for scene in active {
            if let key = windows(scene).last(where: isKey) { return key }
        }
        for scene in active {
            if let front = windows(scene).last { return front }
        }
        return nil
    }
}
