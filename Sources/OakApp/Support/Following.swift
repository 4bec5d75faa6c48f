extension AsyncStream where Element: Sendable {
    /// Hands every value to `apply` on the main actor, where the models live, until the stream ends or
    /// the returned task is cancelled.
    @MainActor
    func follow(_ apply: @escaping @MainActor (Element) -> Void) -> Task<Void, Never> {
        Task { @MainActor in
            for await value in self { apply(value) }
        }
    }
}
