import contextlib
import fcntl
import os
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "rules"
FIXTURES = Path(__file__).resolve().parent / "fixtures"

# CI and the default run use "ci"; long fuzz/soak runs: VBR_HYPOTHESIS=soak pytest ...
settings.register_profile("ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("soak", max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("VBR_HYPOTHESIS", "ci"))


# The slow tier: a test marked `@pytest.mark.slow`, or named here ("file", or "file::test" with the
# test's name without its parameters). The fast tier, `pytest -m "not slow"`, is the inner loop;
# CI and scripts/test.sh run both. Named here: every test that took over 0.4 s (all its parameters
# together) in one run of the whole suite with --durations=0 on a busy 2-core machine, every fast
# test that took over 0.6 s in a run of the fast tier alone on the slower machine of b79818f, and
# the like among tests added since (README, "Tests"). A name here that matches no test fails the
# collection, so the list cannot rot.
SLOW = {
    # whole files: their fast tests are few and brief
    "test_check_speed_invariants.py", "test_diagram_legibility.py", "test_every_rule_file.py",
    "test_highlight.py", "test_html_report.py", "test_rules_behaviour.py",
    "test_parser_cache.py", "test_play_tmux.py",
    "test_rl_observation.py", "test_engine_option.py", "test_hostile_engines.py", "test_typed_constructs.py",
    "test_typed_generated.py", "test_c_build_stopped.py", "test_c_sanitized.py",
    "test_worker_pool_reuse.py",  # every test starts worker processes (spawn), 1 to 2 s each
    # over 0.9 s each in the fast tier, one process, at ca22920
    "test_hostile_cli_more.py::test_plots_replace_no_file_through_a_link_out_of_their_folder",
    "test_metrics.py::test_two_sides_read_as_the_general_definition_reads_them_with_a_third_side_that_never_scores",
    "test_trace.py::test_a_printed_table_links_the_rule_file_from_the_current_folder",
    "test_parser.py::test_a_file_parsed_in_four_threads_at_once_keeps_each_of_its_comments_once_in_each",
    "test_analysis_commands.py::test_a_sweep_over_the_seats_records_each_games_own_agents_so_summarize_reads_its_rows",
    "test_api.py::test_summarizing_play_games_results_gives_the_figures_vbr_sim_prints",
    "test_output_hygiene.py::test_a_reveal_of_long_things_shows_them_together_cut_at_the_limit_and_its_log_replays",
    "test_mutation.py::test_the_scenarios_read_at_the_start_judge_every_mutant_in_this_process_and_in_workers",
    # test_engine_default.py: a vbr process of its own each
    "test_engine_default.py::test_without_a_c_compiler_the_default_plays_through_python_with_a_one_line_note",
    "test_engine_default.py::test_engine_c_without_a_compiler_stops_with_the_reason_and_plays_nothing",
    "test_engine_default.py::test_vbr_load_without_a_compiler_takes_the_python_engine_and_notes_why",
    # test_analysis_commands.py
    "test_analysis_commands.py::test_a_worker_killed_during_a_run_is_a_one_line_error_not_a_hang",
    "test_analysis_commands.py::test_bad_run_requests_are_usage_errors",
    "test_analysis_commands.py::test_ctrl_c_during_sim_writes_the_finished_games_and_says_so",
    "test_analysis_commands.py::test_ctrl_c_during_sweep_writes_the_rows_so_far",
    "test_analysis_commands.py::test_progress_is_silent_when_stderr_is_not_a_terminal",
    "test_analysis_commands.py::test_ctrl_c_in_the_first_chunk_keeps_the_games_finished",
    "test_analysis_commands.py::test_progress_on_a_real_terminal_counts_each_game_with_rate_time_left_and_the_running_estimate",
    "test_analysis_commands.py::test_compare_calls_cattacks_teams_by_their_names_as_sim_does",
    "test_cli_conventions.py::test_no_commands_help_shows_a_doubled_percent_sign",
    # test_precision.py
    "test_precision.py::test_a_run_stops_at_the_first_check_where_the_half_width_is_below_the_target_and_covers_the_known_rate",
    "test_precision.py::test_with_the_seats_rotated_a_deal_in_both_seatings_is_one_observation",
    "test_precision.py::test_a_run_that_reaches_n_first_says_the_precision_was_not_reached",
    "test_precision.py::test_a_run_stops_at_the_same_game_with_two_workers_as_in_one_process",
    "test_analysis_commands.py::test_ray_backend_writes_the_same_rows_as_the_local_one",
    "test_analysis_commands.py::test_sigterm_or_sighup_during_sim_with_workers_writes_the_finished_games_and_ends_the_workers",
    "test_analysis_commands.py::test_sigterm_to_vbrs_whole_process_group_writes_the_finished_games_and_does_not_hang",
    "test_analysis_commands.py::test_sim_out_jsonl_has_one_row_per_game_that_vbr_run_plays_again",
    "test_analysis_commands.py::test_sim_plot_writes_png_and_svg",
    "test_analysis_commands.py::test_sweep_plays_every_combination_in_grid_order",
    "test_analysis_commands.py::test_sweep_plot_draws_each_metric_against_the_swept_option",
    "test_analysis_commands.py::test_a_sweeps_jsonl_rows_hold_each_swept_option_as_sim_json_holds_it",
    "test_analysis_commands.py::test_sweep_table_names_each_combination",
    "test_analysis_commands.py::test_unwritable_destination_is_refused_before_any_game",
    "test_analysis_commands.py::test_workers_end_when_vbr_is_killed_outright",
    # test_checker.py
    "test_checker.py::test_bundled_rules_check_with_every_option_combination",
    # test_cli.py
    "test_cli.py::test_check_ok",
    "test_cli.py::test_run_prints_play_and_writes_a_log_that_replays",
    "test_cli.py::test_run_same_seed_same_output",
    "test_cli.py::test_sim_json_is_the_same_for_one_and_two_workers",
    "test_cli.py::test_test_command_last_line",
    # test_cli_conventions.py
    "test_cli_conventions.py::test_a_fault_in_sim_names_the_game_and_its_seed_for_any_number_of_workers",
    "test_cli_conventions.py::test_fmt_check_passes_on_every_bundled_rule_file",
    "test_cli_conventions.py::test_python_dash_m_vbr_runs_the_command",
    # test_docs.py
    "test_docs.py::test_every_command_shown_prints_what_is_shown",
    "test_docs.py::test_every_fragment_parses",
    "test_docs.py::test_tutorial_rule_files_load",
    "test_docs.py::test_tutorial_scenarios_pass",
    # test_hostile_input.py
    "test_hostile_input.py::test_a_chain_of_a_thousand_consts_is_one_located_error",
    "test_hostile_input.py::test_a_chain_of_a_thousand_fns_is_one_located_error_at_the_fn_past_the_limit",
    "test_hostile_input.py::test_a_chain_of_a_thousand_procs_is_one_located_error",
    "test_hostile_input.py::test_a_chain_of_fns_within_the_limit_checks_and_plays",
    "test_hostile_input.py::test_a_file_of_millions_of_comments_is_refused_by_vbr_check_within_the_hang_guard",
    "test_hostile_input.py::test_a_kind_of_100000_fields_is_refused_at_the_token_limit_within_the_hang_guard",
    "test_hostile_input.py::test_a_megabyte_of_statements_is_refused_by_vbr_check_within_the_hang_guard",
    "test_hostile_input.py::test_an_extends_chain_at_the_limit_loads",
    "test_hostile_input.py::test_an_extends_chain_of_a_thousand_files_ends_at_the_limit",
    "test_hostile_input.py::test_an_extends_chain_past_the_limit_is_a_located_error",
    "test_hostile_input.py::test_enum_members_and_option_values_past_the_limit_are_refused",
    "test_hostile_input.py::test_extends_of_a_file_below_the_folder_and_of_a_bundled_name_work",
    "test_hostile_input.py::test_extends_out_of_the_folder_or_of_a_non_rule_file_is_refused",
    "test_hostile_input.py::test_many_problems_on_a_long_line_render_in_bounded_size",
    "test_hostile_input.py::test_the_files_of_an_extends_chain_share_the_token_limit",
    "test_hostile_input.py::test_too_many_declarations_are_refused_at_the_first_past_the_limit",
    # test_layering.py
    # test_lsp.py
    "test_lsp.py::test_a_bundled_file_has_no_diagnostics",
    "test_lsp.py::test_a_scenario_file",
    "test_lsp.py::test_a_syntax_error_keeps_the_rest_of_the_file",
    "test_lsp.py::test_all_problems_at_once",
    "test_lsp.py::test_an_error_arrives_at_its_range_with_the_text_of_vbr_check",
    "test_lsp.py::test_completion_offers_names_keywords_and_options",
    "test_lsp.py::test_edits_parsed_a_declaration_at_a_time_equal_a_whole_parse",
    "test_lsp.py::test_formatting_gives_the_canonical_form",
    "test_lsp.py::test_saving_a_base_file_checks_its_variants_again",
    # test_mcts.py
    "test_mcts.py::test_mcts_beats_random",
    "test_mcts.py::test_same_seed_gives_the_same_game",
    "test_mcts.py::test_mcts_does_not_expect_to_take_the_best_of_cards_it_takes_unseen",
    # test_redeal_pending_choice.py
    "test_redeal_pending_choice.py::test_an_agent_taking_a_card_unseen_wins_no_more_than_chance",
    # test_mutation.py
    "test_mutation.py::test_equivalent_survivors_are_listed_apart_with_the_reason",
    "test_mutation.py::test_sampling_is_fixed_by_the_seed",
    "test_mutation.py::test_survivors_are_grouped_by_the_passage_their_line_cites",
    "test_mutation.py::test_survivors_are_killed_by_a_scenario_that_pins_the_amount",
    "test_mutation.py::test_the_command_prints_json",
    "test_mutation.py::test_workers_give_the_same_report",
    # test_openspiel.py
    "test_openspiel.py::test_a_chance_outcome_that_is_not_offered_is_an_illegal_action",
    "test_openspiel.py::test_a_game_through_openspiels_chance_nodes_shows_what_the_typed_engine_shows_given_the_same_outcomes",
    "test_openspiel.py::test_a_draw_beyond_the_bound_is_an_error_naming_the_draw",
    "test_openspiel.py::test_a_public_chance_outcome_changes_every_seats_information_state",
    "test_openspiel.py::test_a_shuffle_of_a_deck_a_seat_cannot_see_leaves_its_information_state_unchanged",
    "test_openspiel.py::test_a_state_serializes_and_replays_its_choices_and_chance_outcomes",
    "test_openspiel.py::test_cfr_finds_the_dominant_strategy_of_a_hidden_high_card_game",
    "test_openspiel.py::test_each_seats_earlier_information_state_and_action_begin_its_later_ones",
    "test_openspiel.py::test_every_chance_node_offers_increasing_outcomes_whose_probabilities_add_up_to_one",
    "test_openspiel.py::test_mcts_beats_the_random_bot_at_siatka",
    "test_openspiel.py::test_observations_are_the_seats_tensors",
    "test_openspiel.py::test_observe_options_appends_each_options_row_to_the_observation_tensor",
    "test_openspiel.py::test_openspiel_random_simulation_check_passes_with_explicit_chance_and_serialization",
    "test_openspiel.py::test_registering_again_is_harmless_and_a_clash_is_an_error",
    "test_openspiel.py::test_setup_pick_of_the_first_server_follows_the_chosen_outcome",
    "test_openspiel.py::test_shuffle_swaps_follow_the_chosen_outcomes",
    "test_openspiel.py::test_the_c_engine_passes_openspiels_checks_and_plays_the_python_engines_game",
    "test_openspiel.py::test_the_cfr_example_of_docs_rl_runs_and_prints_a_small_exploitability",
    "test_openspiel.py::test_the_game_type_comes_from_the_rules",
    "test_openspiel.py::test_the_information_state_of_the_seat_to_move_determines_its_legal_actions",
    # test_packaging.py
    "test_packaging.py::test_wheel_bundles_rules_and_runs_outside_the_repository",
    # test_parser.py
    "test_parser.py::test_canonical_printer_round_trips",
    "test_parser.py::test_deep_and_large_mutations_give_located_errors_only",
    "test_parser.py::test_fmt_keeps_every_comment_in_order",
    "test_parser.py::test_mutated_rule_files_give_located_errors_only",
    "test_parser.py::test_the_siatka_files_are_in_canonical_form",
    # test_pettingzoo.py
    "test_pettingzoo.py::test_pettingzoo_api_test_passes",
    "test_pettingzoo.py::test_pettingzoo_api_test_passes_with_the_options_observed",
    "test_pettingzoo.py::test_rewards_at_the_end_are_each_seats_side_result",
    "test_pettingzoo.py::test_the_action_space_is_derived_from_the_declarations",
    "test_pettingzoo.py::test_the_mask_marks_exactly_the_legal_choices_of_the_seat_to_choose",
    "test_pettingzoo.py::test_the_same_seed_plays_the_same_game_as_vbr_itself",
    # test_plots.py
    "test_plots.py::test_importing_plots_does_not_import_matplotlib",
    "test_plots.py::test_write_compare_plots_writes_both_variants_and_the_metrics",
    "test_plots.py::test_write_sim_plots_writes_no_margin_when_no_game_has_a_score",
    "test_plots.py::test_write_sim_plots_writes_png_and_svg_with_side_names_and_axis_labels",
    "test_plots.py::test_write_sweep_plots_writes_one_figure_per_metric_labelled_with_options",
    # test_ray_backend.py
    "test_ray_backend.py::test_games_come_back_one_by_one_in_the_order_their_chunks_were_sent",
    "test_ray_backend.py::test_trials_equal_the_local_backends_with_one_and_two_workers",
    "test_ray_backend.py::test_without_ray_the_error_says_how_to_install_it",
    # test_runtime_limits.py
    "test_runtime_limits.py::test_a_scenario_given_block_is_bounded",
    # test_scenarios.py
    "test_scenarios.py::test_scenario",
    "test_scenarios.py::test_siatka_scenarios_cover_every_worked_example",
    "test_scenarios.py::test_every_scenario_of_a_book_passes_under_the_c_engine",
    "test_scenarios.py::test_failing_scenarios_fail_alike_in_the_python_and_c_engines",
    # test_search_api.py
    "test_search_api.py::test_a_field_set_in_a_clone_stays_in_the_clone",
    "test_search_api.py::test_cloned_games_play_on_like_the_original",
    "test_search_api.py::test_determinize_deals_the_same_worlds_as_the_pooled_shuffle",
    # test_seeds.py
    "test_seeds.py::test_a_reports_diagram_counts_the_games_of_its_metrics",
    "test_seeds.py::test_graph_sim_counts_the_games_sim_plays",
    # test_terminal.py
    "test_terminal.py::test_no_command_lets_a_control_character_of_the_rule_file_through",
    # test_terminal_screen.py
    "test_terminal_screen.py::test_a_long_pile_of_another_seat_is_cut_to_its_latest_and_z_shows_it_whole",
    "test_terminal_screen.py::test_a_team_is_played_seat_by_seat_each_with_its_own_view",
    "test_terminal_screen.py::test_a_whole_game_answering_1_ends_with_the_result_and_a_log_that_replays",
    "test_terminal_screen.py::test_bad_entries_are_asked_again_with_a_hint_and_question_mark_shows_the_choices",
    "test_terminal_screen.py::test_bad_seats_agents_and_logs_are_usage_errors",
    "test_terminal_screen.py::test_every_screen_of_every_bundled_game_fits_80_columns_and_shows_no_hidden_card",
    "test_terminal_screen.py::test_leaving_with_q_or_at_the_end_of_input_writes_a_log_that_replays",
    "test_terminal_screen.py::test_long_card_choices_name_the_fields_once",
    "test_terminal_screen.py::test_no_color_turns_colour_off_on_a_terminal",
    "test_terminal_screen.py::test_other_agents_may_be_given_one_per_other_seat",
    "test_terminal_screen.py::test_the_court_picture_draws_each_sides_serve_space_although_it_is_off_the_court",
    "test_terminal_screen.py::test_the_opponents_hand_and_both_decks_stay_hidden",
    # test_trace.py
    "test_trace.py::test_rulebook_table_is_current_and_every_passage_is_tested",
    # test_typed_engines.py
    "test_typed_engines.py::test_a_tampered_library_is_rebuilt_not_loaded",
    "test_typed_engines.py::test_a_whole_game_of_random_seats_in_one_call_is_the_same_in_both_engines_and_answer_by_answer",
    "test_typed_engines.py::test_every_book_and_flow_offers_and_plays_alike_in_python_and_in_c_and_a_book_ends_at_its_target",
    "test_typed_engines.py::test_siatka_plays_the_same_words_in_python_and_in_c",
    "test_typed_engines.py::test_with_nothing_drawn_both_engines_offer_and_end_as_the_rules_of_every_construct_say",
    "test_typed_engines.py::test_a_state_keeps_every_thing_in_exactly_one_zone",
    # test_typed_search.py
    "test_typed_search.py::test_python_and_c_mcts_pick_the_same_option_after_the_same_visits",
    "test_typed_search.py::test_with_spread_playouts_a_search_behind_in_pig_banks_a_large_turn_total_as_the_best_response_does",
    # test_visualizer.py
    "test_volleyball_high_sensible.py",  # a rulebook's player: a game fixture of both engines, 3 s in all
    "test_visualizer.py::test_findings_agree_with_the_networkx_graph",
    "test_visualizer.py::test_sim_with_agents_and_workers_gives_the_same_shares",
    # test_vscode_grammar.py
    "test_vscode_grammar.py::test_every_bundled_file_comments_are_comments",
    "test_vscode_grammar.py::test_every_keyword_is_a_keyword_to_vscode_textmate",
    "test_vscode_grammar.py::test_the_client_starts_vbr_lsp_for_vbr_documents",
    "test_vscode_grammar.py::test_the_extension_packs_into_a_vsix",
    "test_vscode_grammar.py::test_the_sample_gives_the_snapshot",
    # over 0.4 s in the fast tier of the run at ec51125 (the typed engines' C builds, logs, caches)
    "test_analysis_commands.py::test_compare_one_file_under_two_option_sets",
    "test_analysis_commands.py::test_sweep_bad_grid_is_a_usage_error",
    "test_analysis_commands.py::test_sweep_of_many_combinations_prints_a_line_each_within_100_columns",
    "test_analysis_commands.py::test_sweep_of_two_options_pools_each_value_over_the_other",
    "test_analysis_commands.py::test_sweep_table_of_six_combinations_fits_100_columns",
    "test_c_build_limits.py::test_a_full_disk_says_no_space_left_on_device",
    "test_c_build_limits.py::test_a_phase_of_4000_statements_builds_in_bounded_memory_and_plays_as_the_python_engine",
    "test_c_build_limits.py::test_a_rule_file_whose_c_would_pass_the_source_bound_is_not_compiled",
    "test_c_build_limits.py::test_engine_auto_plays_through_the_python_engine_with_a_note_when_the_compiler_passes_its_bound",
    "test_c_build_limits.py::test_engine_c_stops_with_the_reason_when_the_compiler_passes_its_memory_bound",
    "test_cache_trust.py::test_a_cache_folder_of_another_user_is_not_used",
    "test_cache_bound_setting.py::test_a_bad_cache_bound_is_refused_also_when_the_build_is_cached",
    "test_worker_pool_size.py::test_a_run_of_three_games_with_twenty_workers_starts_three_worker_processes",
    "test_cache_trust.py::test_a_folder_at_the_c_library_or_its_sums_is_named_with_what_to_do",
    "test_hostile_search.py::test_a_closed_c_search_of_20000_iterations_among_4000_options_ends_in_bounded_time",
    "test_replay.py::test_a_run_stopped_by_ctrl_c_writes_a_log_that_replays_up_to_its_last_choice",
    "test_replay.py::test_a_logged_run_of_many_choices_takes_the_memory_of_a_short_one",
    "test_replay.py::test_a_replay_of_many_choices_takes_the_memory_of_a_short_one",
    "test_replay.py::test_a_ctrl_c_met_while_c_runs_a_logged_set_up_is_taken_once_it_returns_and_the_log_replays",
    "test_engine_choice.py::test_random_games_play_in_python_unless_a_cached_c_build_is_sooner_and_find_the_same",
    "test_engine_choice.py::test_mcts_plays_in_c_however_few_its_games",
    "test_engine_choice.py::test_the_cost_of_the_games_decides_between_python_and_c",
    "test_engine_choice.py::test_without_a_compiler_an_mcts_sweep_plays_in_python_and_says_why_once",
    "test_engine_choice.py::test_tune_plays_each_value_where_its_games_are_done_sooner_and_finds_the_same",
    "test_cache_trust.py::test_a_named_pipe_at_the_c_build_lock_is_refused_at_once_in_one_line",
    "test_cache_trust.py::test_a_named_pipe_at_a_cached_file_is_not_read_and_is_made_again",
    "test_hostile_build.py",  # building generated rule files at their bounds: 40 s in all
    "test_hostile_hunt.py",  # rule files at the bounds, both engines: 11 s of the fast tier at 63d8527
    "test_hostile_compiler.py",  # compilers that sleep, fail or write junk: 10 s of the fast tier at 63d8527
    "test_cache_trust.py::test_a_named_pipe_as_the_secret_is_named_in_a_warning_not_waited_on",
    "test_cache_trust.py::test_a_cache_folder_others_may_write_is_not_used_and_a_warning_says_so",
    "test_cache_trust.py::test_a_planted_c_engine_with_a_matching_digest_is_never_loaded",
    "test_cache_trust.py::test_a_planted_parsed_file_is_never_unpickled",
    "test_cache_trust.py::test_a_planted_parser_cache_is_never_unpickled",
    "test_cache_trust.py::test_the_cache_folder_and_its_secret_are_the_users_alone",
    "test_cache_trust.py::test_a_secret_that_is_no_key_is_named_with_what_to_do",
    "test_checker.py::test_a_grammar_word_that_is_not_reserved_works_as_a_member_and_a_value",
    "test_cli.py::test_sim_names_options_as_they_are_typed",
    "test_hostile_output.py::test_bidi_controls_in_the_title_never_reach_the_report_page",
    "test_hostile_output.py::test_rows_written_to_a_named_pipe_reach_its_reader_and_the_pipe_stays",
    "test_hostile_output.py::test_tex_in_a_title_is_drawn_as_its_own_text",
    "test_hostile_output.py::test_tex_in_an_option_value_of_a_sweep_is_drawn_as_its_own_text",
    "test_hostile_paths.py::test_a_link_named_like_a_rule_file_shows_no_line_of_what_it_leads_to",
    "test_hostile_paths.py::test_trace_refuses_a_device_or_a_pipe_without_reading_it",
    "test_layering.py::test_no_command_module_imports_the_cli",
    "test_layering.py::test_no_import_circle",
    "test_lsp.py::test_a_burst_of_edits_is_analysed_once_it_pauses",
    "test_lsp.py::test_a_position_far_past_the_end_gets_an_answer_not_a_crash",
    "test_lsp.py::test_document_symbols_are_the_files_declarations",
    "test_lsp.py::test_hover_shows_the_declaration_its_comment_and_the_passage",
    "test_measures.py::test_a_team_game_reports_a_side_measure_by_team",
    "test_measures.py::test_the_first_mover_after_set_up_wins_as_the_hand_computation_says",
    "test_mutation.py::test_a_run_tries_at_most_ten_mutants_for_each_one_asked_for",
    "test_mutation.py::test_the_score_line_and_the_counts_per_kind_count_the_same_mutants",
    "test_paired_runs.py::test_typed_engines_draw_cattacks_first_server_alike_under_another_deck",
    "test_plots.py::test_compare_metrics_figure_names_the_agents_shows_percent_and_marks_a_zoomed_axis",
    "test_ray_backend.py::test_a_failing_game_reaches_the_caller_as_game_failed",
    "test_ray_backend.py::test_an_address_that_is_not_host_and_port_is_a_usage_error",
    "test_ray_backend.py::test_chunks_are_taken_no_more_than_workers_ahead",
    "test_replay_limits.py::test_replay_of_a_big_log_stops_at_its_divergence_in_little_memory",
    "test_restrict.py::test_a_restricted_seat_wins_as_often_as_its_remaining_options_make_it",
    "test_restrict.py::test_a_thing_is_named_by_its_kind_and_its_enum_fields",
    "test_restrict.py::test_importance_ranks_each_word_by_the_win_rate_its_seat_loses_without_it",
    "test_restrict.py::test_importance_with_mcts_seats_runs_under_the_typed_engines",
    "test_restrict.py::test_importance_stopped_by_sigterm_in_a_word_s_runs_exits_with_the_signal_s_code",
    "test_builds_ahead.py",
    "test_whole_game_call.py::test_without_pythons_headers_a_run_in_c_plays_the_same_games_through_ctypes",
    "test_rotate_seats.py::test_a_rotated_sweep_has_a_line_and_columns_per_agent",
    "test_rotate_seats.py::test_rotation_is_off_by_default_when_every_seat_has_the_same_agent",
    "test_rotate_seats.py::test_sim_rows_cover_every_seating_of_each_deal_and_replay_with_their_agents",
    "test_rotate_seats.py::test_sweep_and_compare_rotate_the_seats_of_every_run",
    "test_rotate_seats.py::test_the_python_engine_plays_each_deal_in_both_seatings",
    "test_typed_logs.py::test_a_changed_event_in_a_typed_log_is_reported_at_its_line",
    "test_typed_logs.py::test_a_log_of_an_engine_this_vbr_does_not_have_is_refused_naming_it_and_replays_through_one_it_has",
    "test_typed_logs.py::test_a_log_of_another_version_of_the_generator_is_refused",
    "test_typed_logs.py::test_a_run_time_error_shows_the_typed_game_up_to_it",
    "test_typed_logs.py::test_a_typed_log_replays_through_its_engine_and_through_the_other",
    "test_typed_logs.py::test_replay_with_an_engine_there_is_not_is_a_usage_error",
    "test_typed_logs.py::test_searching_agents_give_the_same_events_in_both_engines",
    "test_typed_logs.py::test_siatkas_log_keeps_the_score_as_the_book_counts_it",
    "test_typed_logs.py::test_the_python_and_the_c_engine_write_the_same_log_but_for_the_engines_name",
    "test_typed_logs.py::test_vbr_run_prints_the_same_game_through_either_typed_engine",
    "test_typed_play.py::test_a_session_through_a_typed_engine_plays_to_the_end_and_its_log_replays",
    "test_typed_play.py::test_every_seat_observes_the_same_in_python_and_in_c_and_only_what_it_may_see",
    "test_typed_search.py::test_a_search_stops_once_its_answer_is_settled_and_answers_as_the_full_search",
    "test_typed_search.py::test_python_and_c_determinize_give_the_same_words",
    # test_layering.py, test_court.py, test_hostile_input.py, test_docs.py: each over 0.4 s warm
    "test_layering.py::test_checking_a_bundled_file_imports_no_engine",
    "test_layering.py::test_an_engine_imports_nothing_of_the_run_the_cli_or_the_rl_adapters",
    "test_layering.py::test_the_typed_program_imports_no_engine",
    "test_layering.py::test_every_module_vbr_imports_from_itself_is_there",
    "test_layering.py::test_below_the_engines_nothing_imports_an_engine_or_the_typed_program",
    "test_layering.py::test_a_table_entry_with_no_check_stops_the_import",
    "test_court.py::test_the_geometry_built_ins_in_a_rule_file",
    "test_hostile_input.py::test_doubling_fns_within_the_expanded_size_check_and_compute",
    "test_docs.py::test_every_whole_rule_file_passes_the_checker",
    "test_terminal_screen.py::test_the_closure_engine_is_a_usage_error_before_any_game",
    "test_engine_threads.py",
    # vbr sim's column store and streamed rows (session 30)
    "test_column_store.py::test_a_run_into_a_store_keeps_a_siatka_game_in_under_a_hundred_bytes",
    "test_column_store.py::test_a_store_reads_as_the_columns_of_the_same_games_whatever_their_values_and_parts",
    "test_columns.py::test_one_walk_of_a_track_gives_what_each_per_game_function_gives",
    "test_columns.py::test_two_figures_are_one_when_the_same_games_count_and_their_values_differ_by_a_constant_or_mirror",
    "test_sim_streaming.py::test_ctrl_c_keeps_the_rows_and_the_summary_of_the_same_finished_games",
    "test_sim_streaming.py::test_rows_written_as_games_arrive_are_the_rows_of_the_run_written_at_once",
    "test_terminal_screen.py::test_play_stopped_by_a_closed_terminal_or_a_kill_writes_its_log_and_exits_with_the_signal",
    "test_compare_stores.py::test_comparing_two_stores_of_the_same_deals_gives_what_comparing_their_trials_gives",
    # over 0.6 s in the fast tier's run at b79818f: whole files, then tests by file
    "test_c_load_cache.py", "test_cli_docs.py", "test_column_store.py", "test_hostile_search.py",
    "test_importance_pass.py", "test_lsp_protocol.py", "test_ray_backend.py", "test_rl_threads.py",
    "test_rules_changed.py", "test_typed_logs.py", "test_worker_start_ctrl_c.py",
    # test_analysis_commands.py
    "test_analysis_commands.py::test_sweep_over_an_option_that_changes_the_seats_plays_every_combination",
    # test_api.py
    "test_api.py::test_a_numpy_integer_seed_plays_the_game_of_the_same_int",
    "test_api.py::test_state_mcts_takes_a_setting_beside_what_it_needs",
    "test_api.py::test_state_mcts_takes_numpy_numbers_as_the_same_settings",
    "test_api.py::test_the_api_examples_run",
    # test_cache_bound.py
    "test_cache_bound.py::test_a_bound_that_is_no_whole_number_of_megabytes_stops_the_c_engine_saying_so",
    "test_cache_bound.py::test_vbr_cache_clear_deletes_vbrs_files_and_leaves_everything_else",
    "test_cache_bound.py::test_vbr_cache_refuses_a_folder_others_may_write",
    # test_chance_program.py
    "test_chance_program.py::test_a_books_setup_with_the_same_outcomes_deals_the_same_in_python_and_c",
    # test_cli.py
    "test_cli.py::test_a_reader_that_closes_the_pipe_early_ends_vbr_quietly_with_0",
    "test_cli.py::test_a_run_with_an_mcts_agent_takes_a_worker_per_core_unless_told",
    "test_cli.py::test_run_writes_its_log_when_the_reader_closes_the_pipe_early",
    # test_docs_examples.py
    "test_docs_examples.py::test_every_command_shown_in_analysis_prints_what_is_shown",
    # test_draw_events.py
    "test_draw_events.py::test_the_python_and_the_c_engine_log_the_same_draws_of_a_book",
    # test_engine_default.py
    "test_engine_default.py::test_a_compiler_that_fails_without_a_word_is_named_with_its_exit_status",
    # test_flow_steps.py
    "test_flow_steps.py::test_volleyball_highs_defences_are_counted_from_their_calls",
    # test_hostile_cli_more.py
    "test_hostile_cli_more.py::test_a_grid_of_a_billion_combinations_is_a_usage_error_before_any_is_made",
    "test_hostile_cli_more.py::test_a_report_through_a_link_out_of_its_folder_is_refused_saying_why",
    "test_hostile_cli_more.py::test_an_xdg_cache_home_that_is_a_file_leaves_the_c_engine_out_in_words",
    "test_hostile_cli_more.py::test_games_of_more_sides_than_their_rule_file_are_refused_before_they_are_counted",
    "test_hostile_cli_more.py::test_plots_show_control_characters_escaped_and_their_svg_is_xml",
    "test_hostile_cli_more.py::test_the_report_page_shows_a_rule_files_control_characters_escaped",
    "test_hostile_cli_more.py::test_trace_update_of_a_page_that_is_no_text_file_is_refused_unread",
    "test_hostile_cli_more.py::test_tune_over_a_range_of_10_to_the_18_values_plays_without_listing_them",
    # test_hostile_input.py
    "test_hostile_input.py::test_check_and_graph_of_procedures_each_calling_the_next_twice_end_and_draw_every_phase",
    # test_hostile_output.py
    "test_hostile_output.py::test_a_log_to_a_named_pipe_reaches_its_reader_whole",
    "test_hostile_output.py::test_a_log_to_dev_stdout_that_is_a_pipe_is_written_into_it",
    "test_hostile_output.py::test_a_run_stopped_while_logging_to_a_named_pipe_ends_its_log_where_it_stopped_and_it_replays",
    # test_lsp.py
    "test_lsp.py::test_a_block_left_open_does_not_hide_the_syntax_error_of_the_next_declaration",
    "test_lsp.py::test_a_declaration_line_typed_twice_is_reported_as_vbr_check_reports_it",
    "test_lsp.py::test_a_file_without_its_game_line_is_an_error_at_its_first_declaration_as_vbr_check_says",
    "test_lsp.py::test_an_unclosed_block_is_reported_with_the_text_of_vbr_check_not_as_the_end_of_the_file",
    "test_lsp.py::test_what_the_typed_program_cannot_express_is_reported_on_open_on_save_and_once_edits_pause",
    # test_mcts.py
    "test_mcts.py::test_mcts_at_any_seat_of_a_team_game_picks_its_own_teams_win",
    "test_mcts.py::test_mcts_expects_each_seat_to_play_for_its_own_team",
    # test_new_user_path.py
    "test_new_user_path.py::test_a_misspelt_value_of_an_option_of_listed_values_suggests_the_value_meant",
    "test_new_user_path.py::test_yes_and_on_play_the_game_true_plays_as_the_error_says",
    # test_openspiel.py
    "test_openspiel.py::test_a_registered_game_pickles_and_loads_in_a_process_that_never_registered_it",
    "test_openspiel.py::test_openspiels_playthrough_runs_and_its_public_and_private_observations_hide_the_hands",
    "test_openspiel.py::test_pig_written_in_vbr_plays_openspiels_own_pig_move_for_move",
    # test_output_hygiene.py
    "test_output_hygiene.py::test_a_long_say_in_a_loop_prints_at_most_the_limit_each_time",
    # test_paired_runs.py
    "test_paired_runs.py::test_arms_of_three_rule_files_under_the_same_options_are_told_apart_by_their_files",
    "test_paired_runs.py::test_summarize_of_a_sweeps_rows_takes_its_options_in_the_order_of_its_grid",
    # test_pettingzoo.py
    "test_pettingzoo.py::test_a_deep_copy_of_an_environment_plays_on_apart_from_it",
    "test_pettingzoo.py::test_a_pickled_environment_mid_game_plays_on_as_the_original",
    "test_pettingzoo.py::test_pettingzoo_state_space_test_passes_and_every_state_lies_in_the_state_space",
    "test_pettingzoo.py::test_the_state_is_the_same_under_the_python_and_c_engines",
    # test_precision.py
    "test_precision.py::test_a_run_stops_on_the_first_mover_or_a_declared_measure_and_covers_its_known_rate",
    # test_replay.py
    "test_replay.py::test_a_log_the_disk_will_not_take_whole_is_an_error_naming_it_and_leaves_no_file",
    "test_replay.py::test_a_run_stopped_inside_its_set_up_in_python_writes_a_log_that_replays_up_to_where_it_stopped",
    # test_replay_limits.py
    "test_replay_limits.py::test_a_line_of_escaped_quotes_is_read_once_and_reported_where_it_is",
    # test_restrict.py
    "test_restrict.py::test_a_restricted_mcts_seat_never_takes_what_is_taken_away_under_the_typed_engines",
    "test_restrict.py::test_importance_out_csv_writes_the_interval_as_two_numeric_columns",
    # test_scenario_options.py
    "test_scenario_options.py::test_a_scenario_s_misspelt_enum_member_is_refused_with_the_member_meant",
    # test_search_observation.py
    "test_search_observation.py::test_a_heavy_fns_working_words_are_not_observed",
    "test_search_observation.py::test_python_and_c_search_the_same_closed_tree_past_a_heavy_fns_working_words",
    # test_sim_cli_hunt.py
    "test_sim_cli_hunt.py::test_a_run_of_fewer_games_than_workers_starts_a_process_per_game_at_most",
    # test_state_bound.py
    "test_state_bound.py::test_check_reports_the_state_bound_at_the_limit_line",
    "test_state_bound.py::test_limit_depth_10000_over_a_procedure_of_2000_lets_is_refused_at_its_limit_line",
    "test_state_bound.py::test_list_vars_past_the_bound_are_refused_at_the_var_taking_the_most",
    "test_state_bound.py::test_the_command_line_gives_the_state_bound_as_one_located_error",
    "test_state_bound.py::test_the_default_depth_over_the_same_procedure_loads",
    # test_sweep_hunt.py
    "test_sweep_hunt.py::test_sweep_plot_of_a_side_names_it_by_each_of_its_names_when_the_combinations_differ",
    # test_terminal_screen.py
    "test_terminal_screen.py::test_a_searching_agent_says_it_thinks_only_at_a_choice_it_may_not_pass",
    "test_terminal_screen.py::test_hot_seat_leaving_at_the_hand_over_writes_the_log",
    "test_terminal_screen.py::test_the_court_puts_the_seat_at_the_bottom_with_the_ball_where_it_is",
    # test_trace_odd_input.py
    "test_trace_odd_input.py::test_many_passages_and_many_cited_scenarios_are_paired_in_time_that_grows_with_them_not_their_product",
    # test_trial_sharing.py
    "test_trial_sharing.py::test_a_kept_siatka_game_costs_a_few_hundred_bytes",
    "test_trial_sharing.py::test_games_from_two_worker_processes_are_the_runs_games_sharing_this_process_values",
    "test_trial_sharing.py::test_trials_pickled_here_and_unpickled_in_a_fresh_process_are_equal_and_shared_there",
    # over 0.6 s each in the fast tier, one process, at f270d49
    "test_c_search_library.py",
    "test_cache_trust.py::test_a_planted_whole_game_caller_with_a_matching_digest_is_never_loaded",
    "test_cli.py::test_vbr_test_of_a_missing_scenario_file_calls_it_one_and_names_the_bundled_scenarios",
    "test_cli.py::test_a_reader_that_closes_the_pipe_before_an_error_is_told_does_not_make_it_a_success",
    # test_visualizer.py
    "test_visualizer.py::test_a_sim_flag_without_sim_is_a_usage_error_not_ignored",
    "test_visualizer.py::test_the_committed_diagram_is_the_one_its_rule_file_draws",
}


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(config, items):
    matched = set()
    for item in items:
        for name in (item.path.name, f"{item.path.name}::{getattr(item, 'originalname', item.name)}"):
            if name in SLOW:
                item.add_marker(pytest.mark.slow)
                matched.add(name)
    here = Path(__file__).resolve().parent
    whole = {item.path.name for item in items} if not any("::" in a for a in config.args) else set()
    stale = sorted(n for n in SLOW - matched if not (here / n.split("::")[0]).is_file() or n.split("::")[0] in whole)
    if stale:
        raise pytest.UsageError(f"tests/conftest.py SLOW names tests that do not exist: {', '.join(stale)}")


@contextlib.contextmanager
def one_worker_at_a_time(name: str, tmp_path_factory):
    """Under pytest-xdist (scripts/test.sh), the body runs in one worker at a time among those
    holding `name` (a lock file in the folder this run's workers share); in one process, at once."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        yield
        return
    with open(tmp_path_factory.getbasetemp().parent / f"{name}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


@pytest.fixture
def one_ray(tmp_path_factory):
    """The test starts a local Ray while no other worker's Ray runs (two on two cores starve
    each other's start-up)."""
    with one_worker_at_a_time("ray", tmp_path_factory):
        yield


def rule_files():
    return sorted(RULES.glob("*.vbr"))


def scenario_files():
    return sorted((RULES / "tests").glob("*.vbr"))


def ended(pids, seconds: float = 30) -> bool:
    """Every process of `pids` has ended (a zombie waiting for its parent or init to reap it
    counts as ended) within `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        alive = set()
        for pid in pids:
            try:
                if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                    alive.add(pid)
            except OSError:
                pass
        if not alive or time.monotonic() > deadline:
            return not alive
        time.sleep(0.1)


def first_outcomes(monkeypatch, typed_game) -> None:
    """Every draw of the typed Python engine's `typed_game` takes its first outcome (one number,
    and each of a shuffle's numbers), as the closure engine's `Chance([0, ...])` decides its own."""
    from vbr.engines import python_runtime
    first = lambda S, at, n: 0  # noqa: E731
    monkeypatch.setattr(python_runtime, "draw_below", first)
    monkeypatch.setattr(python_runtime, "draws_below", lambda S, at, bounds: [0] * len(bounds))
    monkeypatch.setitem(typed_game.engine.namespace, "draw_below", first)


def check_problems(path: Path, text: str) -> list[tuple[int, int, str]]:
    """The errors `text`, written to `path`, gets from the checker: (line, column, message) each."""
    from vbr.engines.game import checked_model
    from vbr.errors import VbrCheckError
    path.write_text(text)
    with pytest.raises(VbrCheckError) as info:
        checked_model(path)
    return [(d.span.line, d.span.col, d.message) for d in info.value.diagnostics]
