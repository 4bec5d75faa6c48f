import Foundation

extension Duration {
    /// The duration as a number of seconds (for APIs and arithmetic that take `Double`).
    public var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
