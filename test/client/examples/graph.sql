-- The graph of the README's "Getting started", which the examples in this
-- directory read; run.sh loads it into the test database.
CREATE TABLE graph (
    pk   adjkey,
    sk   adjkey,
    data jsonb,
    PRIMARY KEY (pk, sk)
);

INSERT INTO graph VALUES
    ('USER#alice',    'PROFILE',             '{"name": "Alice Wonderland"}'),
    ('USER#bob',      'PROFILE',             '{"name": "Bob Builder"}'),
    ('USER#alice',    'FRIEND#USER#bob',     '{"since": "2019-05-01"}'),
    ('USER#alice',    'FRIEND#USER#charlie', '{"since": "2020-02-14"}'),
    ('USER#alice',    'FOLLOWS#USER#bob',    '{"since": "2023-01-15"}'),
    ('USER#charlie',  'FOLLOWS#USER#bob',    '{"since": "2023-02-20"}'),
    ('USER#alice',    'LIKES#POST#777',      '{"at": "2023-04-01T10:00:00Z"}'),
    ('USER#bob',      'FRIEND#USER#david',   '{"since": "2021-07-04"}'),
    ('USER#charlie',  'FRIEND#USER#david',   '{"since": "2022-03-01"}'),
    ('USER#charlie',  'LIKES#POST#777',      '{"at": "2023-04-03T19:45:00Z"}'),
    ('USER#charlie',  'LIKES#POST#12345',    '{"at": "2023-04-02T08:30:00Z"}'),
    ('USER#Frodo',    'VISITED#PLACE#Gondor', NULL),
    ('USER#Gandalf',  'VISITED#PLACE#Gondor', NULL),
    ('USER#Samwise',  'VISITED#PLACE#Mordor', NULL),
    ('INVOICE#92551', 'BILL#4224663',        '{"amount": 12.50}'),
    ('INVOICE#92551', 'BILL#4224687',        '{"amount": 40.00}'),
    ('INVOICE#92552', 'BILL#4224687',        '{"amount": 40.00}');

SELECT create_inverted_index('graph');
