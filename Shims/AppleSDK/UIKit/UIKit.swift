// A stand-in for the part of Apple's UIKit that OAuthFlowApple's sign-in glue calls to find the window a sheet is
// presented from, for type-checking it on Linux (scripts/apple-typecheck.sh builds it as a module named UIKit). Only
// what the glue calls, with the signatures Apple documents, `@MainActor` as Apple declares it; nothing here runs.
//
// Sources, developer.apple.com/documentation/uikit/:
//   uiapplication, …/shared (unavailable in application extensions), …/connectedscenes, uiscene,
//   …/activationstate-swift.property, …/activationstate-swift.enum (unattached -1, foregroundActive 0,
//   foregroundInactive 1, background 2), uiwindowscene, …/windows, uiwindow, …/iskeywindow, …/windowscene,
//   uiresponder, uiview.
import Foundation

/// `@MainActor class UIResponder : NSObject`.
@MainActor
open class UIResponder: NSObject {
    public override init() {
        super.init()
    }
}

/// `@MainActor class UIView : UIResponder`.
@MainActor
open class UIView: UIResponder {}

/// `@MainActor class UIWindow : UIView`.
@MainActor
open class UIWindow: UIView {
    /// `var isKeyWindow: Bool { get }`.
    open var isKeyWindow: Bool { false }

    /// `weak var windowScene: UIWindowScene? { get set }`.
    @available(iOS 13.0, tvOS 13.0, *)
    open weak var windowScene: UIWindowScene?
}

/// `@MainActor class UIScene : UIResponder`.
@available(iOS 13.0, tvOS 13.0, *)
@MainActor
open class UIScene: UIResponder {
    /// `enum ActivationState : Int`.
    public enum ActivationState: Int, Sendable {
        case unattached = -1
        case foregroundActive = 0
        case foregroundInactive = 1
        case background = 2
    }

    /// `var activationState: UIScene.ActivationState { get }`.
    open var activationState: ActivationState { .unattached }
}

/// `@MainActor class UIWindowScene : UIScene`.
@available(iOS 13.0, tvOS 13.0, *)
@MainActor
open class UIWindowScene: UIScene {
    /// `var windows: [UIWindow] { get }`.
    open var windows: [UIWindow] { [] }
}

/// `@MainActor class UIApplication : UIResponder`.
@MainActor
open class UIApplication: UIResponder {
    /// `class var shared: UIApplication { get }`, unavailable in application extensions ("Use view controller based
    /// solutions where appropriate instead").
    @available(iOSApplicationExtension, unavailable)
    open class var shared: UIApplication { UIApplication() }

    /// `var connectedScenes: Set<UIScene> { get }`.
    @available(iOS 13.0, tvOS 13.0, *)
    open var connectedScenes: Set<UIScene> { [] }
}
