// The example's SwiftUI views: the only lines of Examples/AppleSignIn no Linux build compiles. What they show and
// call is SignInModel (../Model), which the package's tests run on Linux.
#if canImport(SwiftUI)
import OAuthFlow
import OAuthFlowApple
import SwiftUI

@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
@main
struct AppleSignInApp: App {
    @State private var model: SignInModel = {
        let clients = (try? AppClients.settings(infoDictionary: Bundle.main.infoDictionary)) ?? [:]
        let store: any TokenStore = (try? KeychainTokenStore()) ?? InMemoryTokenStore()
        return SignInModel(oauth: OAuth(OAuth.Configuration(clients: clients, store: store)), protectedDataAvailable: { await AppleSignInApp.protectedData() }) {
            SystemWebAuthenticator()
        }
    }()

    /// Returns when the system says protected data became available (the device unlocked), for a launch that found the
    /// keychain locked.
    @MainActor static func protectedData() async {
        #if canImport(UIKit)
        for await _ in NotificationCenter.default.notifications(named: UIApplication.protectedDataDidBecomeAvailableNotification) { return }
        #else
        for await _ in NotificationCenter.default.notifications(named: .NSApplicationProtectedDataDidBecomeAvailable) { return }
        #endif
    }

    var body: some Scene {
        WindowGroup { ContentView(model: model) }
    }
}

@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
struct ContentView: View {
    let model: SignInModel

    var body: some View {
        NavigationStack {
            switch model.phase {
            case .signedIn(let provider):
                TabView {
                    List {
                        Text(model.name ?? "Signed in to \(provider)")
                        Text(model.email ?? "")
                        ForEach(model.buttons, id: \.title) { button in
                            Button(button.title) { Task { await model.tap(button) } }
                        }
                        if let answer = model.answer { Text(answer).font(.footnote) }
                        Button("Sign out", role: .destructive) { Task { await model.signOut() } }
                    }
                    .tabItem { Label("Resources", systemImage: "list.bullet") }
                    ScrollView { Text(model.header ?? "not a JWT").monospaced() }.tabItem { Label("Header", systemImage: "doc") }
                    ScrollView { Text(model.payload ?? "not a JWT").monospaced() }.tabItem { Label("Payload", systemImage: "doc.text") }
                }
            default:
                List(model.providers, id: \.self) { provider in
                    Button("Sign in with \(provider)") { Task { await model.signIn(to: provider) } }
                }
                .overlay {
                    switch model.phase {
                    case .failed(let message): Text(message).foregroundStyle(.red).padding()
                    case .waitingForUnlock: Text("Unlock your device to continue.").padding()
                    default: EmptyView()
                    }
                }
            }
        }
        .task { for provider in model.providers { await model.restore(provider) } }
    }
}
#endif
