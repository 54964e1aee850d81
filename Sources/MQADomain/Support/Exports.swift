import MQAStore
