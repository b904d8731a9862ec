"""What each tenant may spend of the shared resources (sandbox workers, costly calls): quotas and admission."""
