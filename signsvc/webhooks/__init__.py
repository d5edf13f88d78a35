"""Events, webhook endpoints and their signed, durable deliveries."""
