"""The audit: rules with codes and severities, findings with file:line."""
